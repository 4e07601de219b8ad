/// How many failed API keys the server takes before it locks (``AuthenticationThrottle``):
/// wrong secrets for one named key, and failed keys of any kind from one client address,
/// each within `window`. Locks last `window`, then twice the last, at most `longestLock`.
public struct AuthenticationLimits: Sendable, Equatable {
  public var window: Duration
  public var perKey: Int
  public var perAddress: Int
  /// Presentations of keys that name no id: these lock nothing, they raise the alarm.
  public var others: Int
  public var longestLock: Duration

  public init(
    window: Duration = .seconds(60), perKey: Int = 10, perAddress: Int = 30, others: Int = 100,
    longestLock: Duration = .seconds(3600)
  ) {
    self.window = window
    self.perKey = perKey
    self.perAddress = perAddress
    self.others = others
    self.longestLock = longestLock
  }
}
