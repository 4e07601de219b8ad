import StoreLedgerCore

/// The app a simulated App Store serves: what Apple would stamp on every signed payload.
public struct SimulatedApp: Sendable, Hashable {
  public var bundleId: String
  public var appAppleId: Int64
  public var environment: AppStoreEnvironment
  /// The build (CFBundleVersion) notifications name.
  public var bundleVersion: String

  public init(
    bundleId: String, appAppleId: Int64, environment: AppStoreEnvironment = .sandbox,
    bundleVersion: String = "1.0.0"
  ) {
    self.bundleId = bundleId
    self.appAppleId = appAppleId
    self.environment = environment
    self.bundleVersion = bundleVersion
  }
}
