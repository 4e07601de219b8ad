import Foundation

/// The one codec between the log's rows and the ledger's events (design.md, "Events"): a row's
/// `payload` is the event's facts (`LedgerEvent.Body`, event types `*.v2`, and the backend's
/// commands), its `claims` Apple's verified claims beside them. Rows written before facts
/// (`appstore.*.v1`, claims as the payload) are read through `ClaimsUpcaster`.
public enum EventCodec {
  /// The stored payload of `body`.
  public static func payload(of body: LedgerEvent.Body) -> [UInt8] {
    // Facts are strings, integers and open enumerations: encoding cannot fail.
    Array(try! encoder.encode(body))
  }

  /// The stored payload of a refund request's step (its case under its name, with the
  /// request's state and when it is due).
  public static func payload(of event: ConsumptionEvent) -> [UInt8] {
    // Identifiers, instants and Apple's enumerations: encoding cannot fail.
    Array(try! encoder.encode(event))
  }

  /// The stored claims.
  public static func claims(_ claims: AppleClaims) -> [UInt8] {
    Array(try! encoder.encode(claims))
  }

  /// Whether rows of `eventType` hold ledger events, in today's form or an older one (other
  /// rows, such as replay progress, are the log's own bookkeeping).
  public static func holdsLedgerEvent(_ eventType: String) -> Bool {
    eventTypes.contains(eventType) || AppleClaims.claimsEventTypes.contains(eventType)
  }

  /// The facts of a row's payload.
  public static func body(eventType: String, payload: UnsafeRawBufferPointer) throws
    -> LedgerEvent.Body
  {
    do {
      if AppleClaims.claimsEventTypes.contains(eventType) {
        return try ClaimsUpcaster.facts(of: payload)
      }
      guard eventTypes.contains(eventType) else { throw unreadable }
      let document = try FlatJSONDecoder.document(of: payload, borrowing: true)
      return try JSONValueDecoder(document).flatValue(LedgerEvent.Body.self, at: 0)
    } catch let error as EventStoreError {
      throw error
    } catch {
      throw unreadable
    }
  }

  public static func body(eventType: String, payload: some Collection<UInt8>) throws
    -> LedgerEvent.Body
  {
    if let body = try payload.withContiguousStorageIfAvailable({
      try self.body(eventType: eventType, payload: UnsafeRawBufferPointer($0))
    }) {
      return body
    }
    return try Array(payload).withUnsafeBytes { try body(eventType: eventType, payload: $0) }
  }

  /// A row of an account's streams as its change derivation takes it: a ledger event, or an
  /// event of a refund request (whose id ends its stream's id, `consumption:<env>:<id>`).
  public static func step(
    eventType: String, payload: some Collection<UInt8>, stream: String, recordedAt: Timestamp,
    key: String?
  ) throws -> AccountStep {
    guard ConsumptionEvent.eventTypes.contains(eventType) else {
      return .ledger(
        LedgerEvent(
          try body(eventType: eventType, payload: payload), recordedAt: recordedAt, key: key))
    }
    let request = stream.split(separator: ":").last.map(String.init) ?? stream
    return .consumption(
      try refundRequestEvent(eventType: eventType, payload: payload), request: request, key: key)
  }

  /// The step of a refund request a row holds (its type is one of
  /// ``ConsumptionEvent/eventTypes``).
  public static func refundRequestEvent(eventType: String, payload: some Collection<UInt8>) throws
    -> ConsumptionEvent
  {
    guard ConsumptionEvent.eventTypes.contains(eventType) else { throw unreadable }
    do {
      return try JSONDecoder().decode(ConsumptionEvent.self, from: Data(payload))
    } catch {
      throw unreadable
    }
  }

  /// The event a row holds, ready to fold.
  public static func event(_ row: RecordedEvent) throws -> LedgerEvent {
    LedgerEvent(
      try body(eventType: row.eventType, payload: row.payload),
      recordedAt: Timestamp(row.recordedAt), key: row.idempotencyKey)
  }

  public static func event(_ row: StreamFoldRow) throws -> LedgerEvent {
    LedgerEvent(
      try body(eventType: row.eventType, payload: row.payload),
      recordedAt: Timestamp(row.recordedAt), key: row.idempotencyKey)
  }

  /// Apple's claims of a row: its `claims`, or its payload for rows written before facts; nil
  /// for rows without any (the backend's commands).
  public static func claims(of row: RecordedEvent) throws -> AppleClaims? {
    let json =
      AppleClaims.claimsEventTypes.contains(row.eventType) ? row.payload : row.claims
    guard let json else { return nil }
    do {
      return try FlatJSONDecoder().decode(AppleClaims.self, from: json)
    } catch {
      throw unreadable
    }
  }

  static let unreadable = EventStoreError(
    .unreadableEvent, "a stored event does not read as its event type says")

  private static let eventTypes = EventTypes.types(of: .facts).union(
    EventTypes.types(of: .factsWithoutTerms))

  private static let encoder = JSONEncoder()
}
