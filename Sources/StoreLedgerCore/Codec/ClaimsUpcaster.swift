/// Reads rows written before the log stored facts (event types `appstore.*.v1`, whose payload
/// is Apple's claims) as the facts today's rows hold: the upcaster. The facts come from the
/// same mapping as at ingest (`LedgerEvent.Body(_: AppleClaims)`); the kinds the fold reads
/// millions of times are read member by member straight from the claims, which the tests hold
/// equal to decoding the claims whole and mapping them.
enum ClaimsUpcaster {
  private typealias ClaimsKeys = AppleClaims.MemberNames
  private typealias NotificationKeys = NotificationClaims.MemberNames
  private typealias DataKeys = NotificationClaims.DataMemberNames

  static func facts(of payload: UnsafeRawBufferPointer) throws -> LedgerEvent.Body {
    // Borrowed: every value is copied out before this returns.
    let document = try FlatJSONDecoder.document(of: payload, borrowing: true)
    let root = JSONObjectReader(decoder: JSONValueDecoder(document), object: 0)
    if document.tokens[0].kind == .object, let facts = try? read(root) { return facts }
    let claims = try JSONValueDecoder(document).flatValue(AppleClaims.self, at: 0)
    guard let facts = LedgerEvent.Body(claims) else { throw EventCodec.unreadable }
    return facts
  }

  /// Nil for the kinds decoded whole; throws where the stored shape is not the log's.
  private static func read(_ root: JSONObjectReader) throws -> LedgerEvent.Body? {
    let kind = try AppleClaims.kind(in: root)
    guard let object = try root.nested(kind) else { throw JSONObjectReader.Mismatch() }
    switch kind.hash {
    case ClaimsKeys.notification.hash: return .notification(try notification(object))
    case ClaimsKeys.transaction.hash:
      guard let facts = try TransactionFacts(flat: object) else { return nil }
      return .transaction(
        SignedTransactionFacts(
          transaction: facts, forwardedToken: try root.string(ClaimsKeys.appAccountToken)))
    case ClaimsKeys.renewalInfo.hash:
      return try RenewalInfoFacts(flat: object).map(LedgerEvent.Body.renewal)
    default: return nil
    }
  }

  private static func notification(_ object: JSONObjectReader) throws -> NotificationFacts {
    let data = try object.nested(NotificationKeys.data)
    return NotificationFacts(
      notificationType: try object.enumeration(NotificationKeys.notificationType),
      subtype: try object.enumeration(NotificationKeys.subtype),
      signedDate: try object.timestamp(NotificationKeys.signedDate),
      status: try data?.enumeration(DataKeys.status),
      transaction: try data.flatMap { try signedObject(DataKeys.signedTransactionInfo, in: $0) }
        .flatMap(TransactionFacts.init(flat:)),
      renewal: try data.flatMap { try signedObject(DataKeys.signedRenewalInfo, in: $0) }
        .flatMap(RenewalInfoFacts.init(flat:)))
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
}
