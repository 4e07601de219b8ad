import StoreLedgerCore

/// The app a simulated App Store serves: what Apple would stamp on every signed payload.
public struct SimulatedApp: Sendable, Hashable {
  public var bundleId: String
  public var appAppleId: Int64
  public var environment: AppStoreEnvironment
  /// The build (CFBundleVersion) notifications name.
  public var bundleVersion: String
  /// How many days back Get Notification History reaches from the store's clock (Apple: 180
  /// in Production, 30 in Sandbox; an older `startDate` is refused with 4000012); nil keeps
  /// every notification, for tests that recover a whole simulated year.
  public var notificationHistoryDays: Int64?

  /// Apple's window of Get Notification History in `environment`.
  public static func applesHistoryDays(_ environment: AppStoreEnvironment) -> Int64 {
    environment == .sandbox ? 30 : 180
  }

  public init(
    bundleId: String, appAppleId: Int64, environment: AppStoreEnvironment = .sandbox,
    bundleVersion: String = "1.0.0", notificationHistoryDays: Int64? = nil
  ) {
    self.notificationHistoryDays = notificationHistoryDays
    self.bundleId = bundleId
    self.appAppleId = appAppleId
    self.environment = environment
    self.bundleVersion = bundleVersion
  }
}
