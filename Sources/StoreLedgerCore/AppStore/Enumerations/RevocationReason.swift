/// `revocationReason`: why the App Store refunded or revoked a transaction.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct RevocationReason: OpenEnumeration {
  public let rawValue: Int32

  public init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  public static let other = Self(rawValue: 0)
  public static let appIssue = Self(rawValue: 1)

  public static let knownValues: [Self] = [
    .other, .appIssue,
  ]
}
