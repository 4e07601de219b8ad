/// `revocationType`: how a transaction was revoked.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct RevocationType: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let refundFull = Self(rawValue: "REFUND_FULL")
  public static let refundProrated = Self(rawValue: "REFUND_PRORATED")
  public static let familyRevoke = Self(rawValue: "FAMILY_REVOKE")

  public static let knownValues: [Self] = [
    .refundFull, .refundProrated, .familyRevoke,
  ]
}
