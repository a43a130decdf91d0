import Beacon

/// Screens and the app's lifecycle as events, with the time spent on each screen.
func trackScreens(_ engine: BeaconEngine<ContinuousClock>) throws {
    let screens = ScreenTracker(tracker: engine.tracker, clock: ContinuousClock())
    try screens.enter("Home")  // Screen Viewed
    try screens.enter("Checkout")  // Screen Exited (Home, duration_ms), Screen Viewed
    try screens.handle(.didEnterBackground)  // Application Backgrounded
    try screens.handle(.willEnterForeground)  // Application Foregrounded (background_ms)
    try screens.exit()  // Screen Exited (Checkout)
}
