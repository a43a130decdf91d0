import Testing

/// The suites that start many processes, or much traffic, at once: agents and collectors
/// restarted on backlogs, processes racing on one store, descriptor and connection
/// exhaustion, real client libraries. They run one after another (each as it likes
/// inside), so that together they do not starve the timing tests of the other suites of
/// the two cores a CI machine has.
@Suite(.serialized) enum ProcessHeavy {}
