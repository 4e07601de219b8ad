/// Apple's claims read without `Decodable` (see FlatJSONObjectDecodable and AppleClaims.swift
/// in Core for the shape): the `claims` column, and the payload of rows written before facts.
extension AppleClaims: FlatJSONObjectDecodable {
  enum MemberNames {
    static let notification = JSONMemberName("notification")
    static let transaction = JSONMemberName("transaction")
    static let renewalInfo = JSONMemberName("renewalInfo")
    static let status = JSONMemberName("status")
    static let appAccountToken = JSONMemberName("appAccountToken")
    static let kinds = [notification, transaction, renewalInfo, status]
  }

  init(flat object: JSONObjectReader) throws {
    func required<T>(_ value: T?) throws -> T {
      guard let value else { throw JSONObjectReader.Mismatch() }
      return value
    }
    let kind = try Self.kind(in: object)
    switch kind.hash {
    case MemberNames.notification.hash:
      self = .notification(try required(object.object(kind)))
    case MemberNames.transaction.hash:
      self = .transaction(
        SignedTransactionClaims(
          transaction: try required(object.object(kind)),
          appAccountToken: try object.string(MemberNames.appAccountToken)))
    case MemberNames.renewalInfo.hash:
      self = .renewalInfo(RenewalInfoClaims(renewalInfo: try required(object.object(kind))))
    default: self = .status(try required(object.object(kind)))
    }
  }

  /// The one member naming the kind (`notification`, `transaction`, ...).
  static func kind(in object: JSONObjectReader) throws -> JSONMemberName {
    var present: JSONMemberName?
    for kind in MemberNames.kinds where object.contains(kind) {
      guard present == nil else { throw JSONObjectReader.Mismatch() }
      present = kind
    }
    guard let present else { throw JSONObjectReader.Mismatch() }
    return present
  }
}
