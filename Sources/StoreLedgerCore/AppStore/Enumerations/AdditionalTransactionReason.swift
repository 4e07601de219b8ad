/// `additionalTransactionReason`: why a period has more than one transaction.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct AdditionalTransactionReason: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  /// Seats added during a period: every transaction of that period carries it, and together
  /// they are the period (none replaces another).
  public static let seatAddition = Self(rawValue: "SEAT_ADDITION")

  public static let knownValues: [Self] = [.seatAddition]
}
