/// One stored event's type, payload and key, not yet decoded: whichever worker folds it
/// decodes it.
public struct StoredEventRow: Sendable {
  public var type: String
  public var payload: [UInt8]
  public var key: String?
  /// When the ledger recorded it: what the status history says it could first tell.
  public var recordedAt: Timestamp?

  public init(type: String, payload: [UInt8], key: String?, recordedAt: Timestamp? = nil) {
    self.type = type
    self.payload = payload
    self.key = key
    self.recordedAt = recordedAt
  }

  /// Whether the row holds a ledger event (a refund request's steps sit in the account's
  /// index for its changes, not its fold).
  public var holdsLedgerEvent: Bool { EventCodec.holdsLedgerEvent(type) }

  /// The ledger event's facts, read through the codec.
  public func body() throws -> LedgerEvent.Body {
    try payload.withUnsafeBytes { try EventCodec.body(eventType: type, payload: $0) }
  }
}
