/// `transactionReason`: a customer purchase or an App Store renewal.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct TransactionReason: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let purchase = Self(rawValue: "PURCHASE")
  public static let renewal = Self(rawValue: "RENEWAL")

  public static let knownValues: [Self] = [
    .purchase, .renewal,
  ]
}
