/// Stored facts read member by member (see LedgerEvent.swift in Core for the shape): the
/// kinds the fold reads millions of times are read straight into facts, the others through
/// `Decodable`.
extension LedgerEvent.Body: FlatJSONObjectDecodable {
  enum MemberNames {
    static let notification = JSONMemberName("notification")
    static let transaction = JSONMemberName("transaction")
    static let renewal = JSONMemberName("renewal")
    static let status = JSONMemberName("status")
    static let debit = JSONMemberName("debit")
    static let link = JSONMemberName("link")
    static let kinds = [notification, transaction, renewal, status, debit, link]
  }

  enum FactMemberNames {
    static let notificationType = JSONMemberName("notificationType")
    static let subtype = JSONMemberName("subtype")
    static let signedDate = JSONMemberName("signedDate")
    static let status = JSONMemberName("status")
    static let transaction = JSONMemberName("transaction")
    static let renewal = JSONMemberName("renewal")
    static let forwardedToken = JSONMemberName("forwardedToken")
    static let unclaimSeatIds = JSONMemberName("unclaimSeatIds")
    static let appTransactionId = JSONMemberName("appTransactionId")
  }

  init(flat root: JSONObjectReader) throws {
    var present: JSONMemberName?
    for kind in MemberNames.kinds where root.contains(kind) {
      guard present == nil else { throw JSONObjectReader.Mismatch() }
      present = kind
    }
    guard let kind = present, let object = try root.nested(kind) else {
      throw JSONObjectReader.Mismatch()
    }
    switch kind.hash {
    case MemberNames.notification.hash: self = .notification(try Self.notification(object))
    case MemberNames.transaction.hash:
      guard
        let facts = try object.nested(FactMemberNames.transaction).flatMap(
          TransactionFacts.init(flat:))
      else { throw JSONObjectReader.Mismatch() }
      self = .transaction(
        SignedTransactionFacts(
          transaction: facts, forwardedToken: try object.string(FactMemberNames.forwardedToken)))
    case MemberNames.renewal.hash:
      guard let facts = try RenewalInfoFacts(flat: object) else {
        throw JSONObjectReader.Mismatch()
      }
      self = .renewal(facts)
    case MemberNames.status.hash: self = .status(try Self.required(root.decoded(kind)))
    case MemberNames.debit.hash: self = .debit(try Self.required(root.decoded(kind)))
    default: self = .link(try Self.required(root.decoded(kind)))
    }
  }

  private static func required<T>(_ value: T?) throws -> T {
    guard let value else { throw JSONObjectReader.Mismatch() }
    return value
  }

  private static func notification(_ object: JSONObjectReader) throws -> NotificationFacts {
    NotificationFacts(
      notificationType: try object.enumeration(FactMemberNames.notificationType),
      subtype: try object.enumeration(FactMemberNames.subtype),
      signedDate: try object.timestamp(FactMemberNames.signedDate),
      status: try object.enumeration(FactMemberNames.status),
      transaction: try object.nested(FactMemberNames.transaction).flatMap(
        TransactionFacts.init(flat:)),
      renewal: try object.nested(FactMemberNames.renewal).flatMap(RenewalInfoFacts.init(flat:)),
      unclaimSeatIds: try object.strings(FactMemberNames.unclaimSeatIds),
      appTransactionId: try object.string(FactMemberNames.appTransactionId))
  }
}
