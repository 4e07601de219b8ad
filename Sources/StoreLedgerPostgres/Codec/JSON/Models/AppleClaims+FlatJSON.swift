/// A stored event read without `Decodable` (see FlatJSONObjectDecodable and
/// LedgerEvent+Codable.swift for the shape).
extension LedgerEvent: FlatJSONObjectDecodable {
  enum MemberNames {
    static let notification = JSONMemberName("notification")
    static let transaction = JSONMemberName("transaction")
    static let renewalInfo = JSONMemberName("renewalInfo")
    static let status = JSONMemberName("status")
    static let debit = JSONMemberName("debit")
    static let link = JSONMemberName("link")
    static let recordedAt = JSONMemberName("recordedAt")
    static let key = JSONMemberName("key")
    static let appAccountToken = JSONMemberName("appAccountToken")
    static let kinds = [notification, transaction, renewalInfo, status, debit, link]
  }

  init(flat object: JSONObjectReader) throws {
    self.init(
      try Self.body(in: object), recordedAt: try object.timestamp(MemberNames.recordedAt),
      key: try object.string(MemberNames.key))
  }

  /// An event as the log stores it: its payload, and the time it was recorded and its key
  /// from the row (the event is made once, with both).
  public init(storedPayload payload: String, recordedAt: Timestamp?, key: String?) throws {
    var payload = payload
    let body = try payload.withUTF8 { try Self.storedBody(UnsafeRawBufferPointer($0)) }
    self.init(body, recordedAt: recordedAt, key: key)
  }

  public init(storedPayload payload: some Collection<UInt8>, recordedAt: Timestamp?, key: String?)
    throws
  {
    let body =
      try payload.withContiguousStorageIfAvailable {
        try Self.storedBody(UnsafeRawBufferPointer($0))
      } ?? Array(payload).withUnsafeBytes(Self.storedBody)
    self.init(body, recordedAt: recordedAt, key: key)
  }

  private static func storedBody(_ payload: UnsafeRawBufferPointer) throws -> Body {
    try FlatJSONDecoder().decode(StoredBody.self, fromBuffer: payload).body
  }

  /// The body of a stored payload, without making an event for it.
  struct StoredBody: FlatJSONObjectDecodable {
    let body: Body

    init(flat object: JSONObjectReader) throws { body = try LedgerEvent.body(in: object) }
    init(from decoder: any Decoder) throws { body = try LedgerEvent(from: decoder).body }
  }

  static func body(in object: JSONObjectReader) throws -> Body {
    try body(storedKind(in: object), in: object)
  }

  /// The one member naming the event's kind (`notification`, `transaction`, ...).
  static func storedKind(in object: JSONObjectReader) throws -> JSONMemberName {
    var present: JSONMemberName?
    for kind in MemberNames.kinds where object.contains(kind) {
      guard present == nil else { throw JSONObjectReader.Mismatch() }
      present = kind
    }
    guard let present else { throw JSONObjectReader.Mismatch() }
    return present
  }

  private static func body(_ kind: JSONMemberName, in object: JSONObjectReader) throws -> Body {
    func required<T>(_ value: T?) throws -> T {
      guard let value else { throw JSONObjectReader.Mismatch() }
      return value
    }
    switch kind.hash {
    case MemberNames.notification.hash:
      return .notification(try required(object.object(kind)))
    case MemberNames.transaction.hash:
      return .transaction(
        TransactionObserved(
          transaction: try required(object.object(kind)),
          appAccountToken: try object.string(MemberNames.appAccountToken)))
    case MemberNames.renewalInfo.hash:
      return .renewalInfo(RenewalInfoObserved(renewalInfo: try required(object.object(kind))))
    case MemberNames.status.hash: return .status(try required(object.object(kind)))
    case MemberNames.debit.hash: return .debit(try required(object.decoded(kind)))
    default: return .link(try required(object.decoded(kind)))
    }
  }
}
