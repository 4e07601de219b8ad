import Foundation

/// Where the client sends requests, with which key, and how patiently.
public struct AppStoreServerAPIConfiguration: Sendable {
  public static let production = "https://api.storekit.apple.com"
  public static let sandbox = "https://api.storekit-sandbox.apple.com"

  /// Production, Sandbox, or a simulator's `http://127.0.0.1:PORT`.
  public var baseURL: String
  public var key: APIKey
  /// Per attempt (Apple's own client uses 30 s).
  public var timeout: Duration
  /// Attempts per call, the first included.
  public var maximumAttempts: Int
  /// The first backoff after a 5xx or a retryable error; doubled each time, with jitter.
  public var initialBackoff: Duration
  /// The longest a `Retry-After` or a backoff is waited for; longer ones fail the call.
  public var maximumWait: Duration
  /// Lifetime of the bearer tokens it mints; each is reused until a minute before it ends.
  public var tokenLifetime: Int64
  /// The wall clock tokens are minted and reused by (the system's; a test passes its own).
  public var now: @Sendable () -> Date

  public init(
    baseURL: String, key: APIKey, timeout: Duration = .seconds(30), maximumAttempts: Int = 4,
    initialBackoff: Duration = .milliseconds(250), maximumWait: Duration = .seconds(60),
    tokenLifetime: Int64 = 300, now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    self.key = key
    self.timeout = timeout
    self.maximumAttempts = max(1, maximumAttempts)
    self.initialBackoff = initialBackoff
    self.maximumWait = maximumWait
    self.tokenLifetime = tokenLifetime
    self.now = now
  }
}
