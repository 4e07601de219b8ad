/// The `appData` body of a `RESCIND_CONSENT` notification.
public struct AppData: Hashable, Sendable, Codable {
  /// Absent in Sandbox.
  public var appAppleId: Int64?
  public var bundleId: String?
  public var environment: AppStoreEnvironment?
  /// A JWS that decodes to ``JWSAppTransactionDecodedPayload``.
  public var signedAppTransactionInfo: String?

  public init() {}
}
