import Dispatch

/// What wakes a dashboard's run loop: a key on the terminal, a snapshot, a signal, or, at
/// the latest, a timeout. An idle screen then sleeps instead of polling 20 times a second.
///
/// Keys are noticed through a dispatch read source on the terminal's input, on the main
/// queue (the main actor's executor). Once it fires it stays suspended until the loop has
/// read every key (``inputDrained()``), so bytes waiting to be read wake the loop once, not
/// again and again. Anything else on the main actor wakes it with ``poke()``.
///
/// ```swift
/// let wakeup = LoopWakeup(input: STDIN_FILENO)
/// defer { wakeup.cancel() }
/// while true {
///     while let key = screen.nextKey() { … }
///     wakeup.inputDrained()
///     await wakeup.wait(atMost: .milliseconds(250))
///     try Task.checkCancellation()
/// }
/// ```
@MainActor
final class LoopWakeup {
    /// A poke that came while nobody waited: the next ``wait(atMost:)`` returns at once.
    private var pending = false
    private var waiter: CheckedContinuation<Void, Never>?
    /// Goes up with every wait and every wake-up, so a timer armed for an earlier wait
    /// cannot end a later one.
    private var generation = 0
    private var input: DispatchSourceRead?
    private var inputSuspended = false

    /// Starts watching `input` (a file descriptor the caller keeps open), if given.
    init(input descriptor: Int32?) {
        guard let descriptor else { return }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .main)
        source.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.inputReady() }
        }
        source.resume()
        input = source
    }

    /// Wakes the loop now, or at its next wait if it is not waiting.
    func poke() {
        guard let waiter else {
            pending = true
            return
        }
        self.waiter = nil
        generation &+= 1
        waiter.resume()
    }

    /// Returns after the next ``poke()`` or key (at once if one came since the last wait),
    /// after `timeout`, or when the task is cancelled, whichever is first.
    func wait(atMost timeout: DispatchTimeInterval) async {
        if pending {
            pending = false
            return
        }
        generation &+= 1
        let mine = generation
        let wake: @MainActor @Sendable () -> Void = { [weak self] in self?.poke() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waiter = continuation
                DispatchQueue.main.asyncAfter(deadline: .now() + timeout) { [weak self] in
                    MainActor.assumeIsolated { self?.timeUp(mine) }
                }
            }
        } onCancel: {
            // Runs wherever the cancelling code runs; the wake-up goes through the main queue.
            DispatchQueue.main.async {
                MainActor.assumeIsolated { wake() }
            }
        }
    }

    /// Lets the terminal's input wake the loop again: call once the keys are all read.
    func inputDrained() {
        guard inputSuspended, let input else { return }
        inputSuspended = false
        input.resume()
    }

    /// Stops watching the input and ends any wait. A suspended source is resumed first:
    /// dispatch traps when one is released while suspended.
    func cancel() {
        if let input {
            if inputSuspended { input.resume() }
            input.cancel()
        }
        input = nil
        inputSuspended = false
        poke()
    }

    private func inputReady() {
        if !inputSuspended, let input {
            inputSuspended = true
            input.suspend()
        }
        poke()
    }

    private func timeUp(_ armedFor: Int) {
        guard armedFor == generation, let waiter else { return }
        self.waiter = nil
        generation &+= 1
        waiter.resume()
    }
}
