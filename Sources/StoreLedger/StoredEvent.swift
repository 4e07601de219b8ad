import Foundation
import StoreLedgerCore

/// An event as the log holds it, for showing: the HTTP API's and the CLI's `events` answer.
public struct StoredEvent: Encodable, Sendable, Hashable {
  public let streamId: String
  public let streamVersion: Int64
  public let eventType: String
  public let idempotencyKey: String
  public let environment: String?
  public let appleSignedAt: Date?
  public let recordedAt: Date
  /// Where it came from (`webhook`, `app`, `replay`, `recovery`, `api`, …).
  public let source: String?
  /// Apple's verified claims, with Apple's field names; for the backend's commands, the
  /// command.
  public let payload: JSONValue
  /// The facts the reducers read, as the log stores them (for rows written before facts were
  /// stored, as the upcaster reads them).
  public let facts: JSONValue?
  /// The original JWS as Apple signed it.
  public let signed: String?
  /// The row's hash-chain link, hex.
  public let hash: String

  public init(_ event: RecordedEvent) throws {
    streamId = event.streamId
    streamVersion = event.streamVersion
    eventType = event.eventType
    idempotencyKey = event.idempotencyKey
    environment = event.environment
    appleSignedAt = event.appleSignedAt
    recordedAt = event.recordedAt
    let metadata = try? JSONDecoder().decode([String: JSONValue].self, from: Data(event.metadata))
    if case .string(let text)? = metadata?["source"] { source = text } else { source = nil }
    let claims =
      AppleClaims.claimsEventTypes.contains(event.eventType) ? event.payload : event.claims
    payload = try JSONDecoder().decode(JSONValue.self, from: Data(claims ?? event.payload))
    facts = try (try? EventCodec.body(eventType: event.eventType, payload: event.payload)).map {
      try JSONDecoder().decode(JSONValue.self, from: Data(EventCodec.payload(of: $0)))
    }
    signed = event.rawSigned
    hash = event.hash.map { String(format: "%02x", $0) }.joined()
  }

  private enum Keys: String, CodingKey {
    case streamId, streamVersion, eventType, idempotencyKey, environment, appleSignedAt
    case recordedAt, source, payload, facts, signed, hash
  }

  /// Instants as Unix milliseconds, the one form of every StoreLedger answer (Apple's own).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(streamId, forKey: .streamId)
    try container.encode(streamVersion, forKey: .streamVersion)
    try container.encode(eventType, forKey: .eventType)
    try container.encode(idempotencyKey, forKey: .idempotencyKey)
    try container.encodeIfPresent(environment, forKey: .environment)
    try container.encodeIfPresent(appleSignedAt.map(Timestamp.init), forKey: .appleSignedAt)
    try container.encode(Timestamp(recordedAt), forKey: .recordedAt)
    try container.encodeIfPresent(source, forKey: .source)
    try container.encode(payload, forKey: .payload)
    try container.encodeIfPresent(facts, forKey: .facts)
    try container.encodeIfPresent(signed, forKey: .signed)
    try container.encode(hash, forKey: .hash)
  }
}
