/// Fold inputs read straight from stored payloads: the members the facts come from are read,
/// Apple's other fields are only scanned, and no body is made.
extension FoldInput {
  private typealias EventKeys = LedgerEvent.MemberNames
  private typealias NotificationKeys = NotificationReceived.MemberNames
  private typealias DataKeys = NotificationReceived.DataMemberNames
  private typealias TransactionKeys = JWSTransactionDecodedPayload.MemberNames
  private typealias RenewalKeys = JWSRenewalInfoDecodedPayload.MemberNames

  /// The fold input of a stored payload, equal in every fact to
  /// `LedgerEvent(storedPayload:recordedAt:key:).compiled` but holding no body: for folds
  /// that only project (the rebuild). Notifications, transactions and renewal infos are read
  /// member by member; other kinds, and payloads not as the log writes them, are decoded whole
  /// (so a member a fact comes from is refused as the whole decode refuses it). Members no
  /// fact comes from are not checked; the audit and every query decode them.
  public convenience init(storedPayload payload: UnsafeRawBufferPointer, key: String?) throws {
    // Borrowed: every value is copied out before this returns, and only the ledger's own
    // types are decoded from it.
    let document = try FlatJSONDecoder.document(of: payload, borrowing: true)
    let root = JSONObjectReader(decoder: JSONValueDecoder(document), object: 0)
    if document.tokens[0].kind == .object, let parts = try? Self.parts(of: root, key: key) {
      self.init(body: nil, change: parts.change, reference: parts.reference)
      return
    }
    let stored = try JSONValueDecoder(document).flatValue(LedgerEvent.StoredBody.self, at: 0)
    self.init(stored.body, key: key, keepingBody: false)
  }

  private typealias Parts = (change: Change, reference: EventReference)

  /// Nil for the kinds decoded whole; throws where the stored shape is not the log's.
  private static func parts(of root: JSONObjectReader, key: String?) throws -> Parts? {
    let kind = try LedgerEvent.storedKind(in: root)
    guard let object = try root.nested(kind) else { throw JSONObjectReader.Mismatch() }
    switch kind.hash {
    case EventKeys.notification.hash: return try notificationParts(of: object, key: key)
    case EventKeys.transaction.hash:
      let (facts, id, signed) = try transaction(object)
      let token = try root.string(EventKeys.appAccountToken).flatMap {
        $0.isEmpty ? nil : AppAccountToken.normalized($0)
      }
      return (
        .transaction(facts, forwardedToken: token),
        EventReference(
          key: key, eventType: TransactionObserved.eventType, signedDate: signed, transactionId: id)
      )
    case EventKeys.renewalInfo.hash:
      let (facts, signed) = try renewal(object)
      return (
        .renewal(facts),
        EventReference(key: key, eventType: RenewalInfoObserved.eventType, signedDate: signed)
      )
    default: return nil
    }
  }

  private static func notificationParts(of object: JSONObjectReader, key: String?) throws -> Parts {
    let type: NotificationType? = try object.enumeration(NotificationKeys.notificationType)
    let subtype: NotificationSubtype? = try object.enumeration(NotificationKeys.subtype)
    let data = try object.nested(NotificationKeys.data)
    let transaction = try data.flatMap { try signedObject(DataKeys.signedTransactionInfo, in: $0) }
      .map(Self.transaction)
    let renewal = try data.flatMap { try signedObject(DataKeys.signedRenewalInfo, in: $0) }
      .map(Self.renewal)
    let change = Change.notification(
      transaction: transaction?.facts, renewal: renewal?.facts,
      isReversal: type == .refundReversed,
      status: try data?.enumeration(DataKeys.status))
    let reference = EventReference(
      key: key, eventType: NotificationReceived.eventType,
      notification: EventReference.notificationName(type, subtype),
      signedDate: try object.timestamp(NotificationKeys.signedDate),
      transactionId: transaction?.id)
    return (change, reference)
  }

  /// A decoded payload in a notification's data; nil for a JWS kept as it came, or none.
  private static func signedObject(_ key: JSONMemberName, in data: JSONObjectReader) throws
    -> JSONObjectReader?
  {
    switch data.kind(key) {
    case .object: return try data.nested(key)
    case .string, .null, nil: return nil
    default: throw JSONObjectReader.Mismatch()
    }
  }

  /// A signed transaction's facts, and its id and signing time even when it has no facts.
  private static func transaction(_ object: JSONObjectReader) throws -> (
    facts: TransactionFacts?, id: String?, signed: Timestamp?
  ) {
    if let facts = try TransactionFacts(flat: object) {
      return (facts, facts.transactionId, facts.signedDate)
    }
    return (
      nil, try object.string(TransactionKeys.transactionId),
      try object.timestamp(TransactionKeys.signedDate)
    )
  }

  /// A renewal info's facts, and its signing time even when it has no facts.
  private static func renewal(_ object: JSONObjectReader) throws -> (
    facts: RenewalFacts?, signed: Timestamp?
  ) {
    if let facts = try RenewalFacts(flat: object) { return (facts, facts.signedDate) }
    return (nil, try object.timestamp(RenewalKeys.signedDate))
  }
}
