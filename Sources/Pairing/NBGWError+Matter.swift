import NBGWCore

extension NBGWError {
    /// Binding a Matter onboarding code (every entry point says the same).
    public static let matterIsNotNB = NBGWError(
        .notNBDevice,
        "QR is a Matter onboarding code, not an NB-IoT device; commission it with a Matter controller"
    )
}
