/// The five App Store subscription states, as in `data.status`.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct SubscriptionStatus: OpenEnumeration {
  public let rawValue: Int32

  public init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  public static let active = Self(rawValue: 1)
  public static let expired = Self(rawValue: 2)
  public static let billingRetry = Self(rawValue: 3)
  public static let billingGracePeriod = Self(rawValue: 4)
  public static let revoked = Self(rawValue: 5)

  public static let knownValues: [Self] = [
    .active, .expired, .billingRetry, .billingGracePeriod, .revoked,
  ]
}
