/// `expirationIntent`: why a subscription expired.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct ExpirationIntent: OpenEnumeration {
  public let rawValue: Int32

  public init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  public static let customerCancelled = Self(rawValue: 1)
  public static let billingError = Self(rawValue: 2)
  public static let priceIncreaseNotConsented = Self(rawValue: 3)
  public static let productNotAvailable = Self(rawValue: 4)
  public static let other = Self(rawValue: 5)

  public static let knownValues: [Self] = [
    .customerCancelled, .billingError, .priceIncreaseNotConsented, .productNotAvailable, .other,
  ]
}
