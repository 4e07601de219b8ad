import AppStoreServerAPI
import Crypto

/// How the simulated App Store Server API listens and whom it lets in.
public struct SimulatorConfiguration: Sendable {
  public var host: String
  /// 0 picks a free port.
  public var port: Int
  /// The In-App Purchase API keys it accepts, by key id, and the issuer they belong to.
  public var apiKeys: [String: P256.Signing.PublicKey]
  public var issuerId: String
  /// Requests per second per endpoint before 429; nil for no limit.
  public var rateLimit: Double?
  /// The first this many authorized calls answer 500 `GeneralInternalRetryableError`, to show
  /// a client's retries.
  public var internalErrors: Int
  /// Whether the app has a notification URL for this environment (Request a Test
  /// Notification answers 404 `ServerNotificationUrlNotFoundError` without one).
  public var hasNotificationURL: Bool

  public init(
    host: String = "127.0.0.1", port: Int = 0, apiKeys: [String: P256.Signing.PublicKey],
    issuerId: String, rateLimit: Double? = nil, internalErrors: Int = 0,
    hasNotificationURL: Bool = true
  ) {
    self.hasNotificationURL = hasNotificationURL
    self.internalErrors = internalErrors
    self.host = host
    self.port = port
    self.apiKeys = apiKeys
    self.issuerId = issuerId
    self.rateLimit = rateLimit
  }
}
