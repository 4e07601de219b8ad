import Foundation

/// An event to append. Its identity is its idempotency key: appending the same key again
/// returns the original event instead of a copy.
public struct NewEvent: Sendable, Hashable {
  /// A stable, versioned name such as `transaction.observed.v1`.
  public var eventType: String
  public var idempotencyKey: String
  /// JSON: the event's facts (``EventCodec/payload(of:)``).
  public var payload: [UInt8]
  public var environment: String?
  /// When Apple signed the data, for "as Apple knew it" reads.
  public var appleSignedAt: Date?
  /// The original JWS, kept for re-verification.
  public var rawSigned: String?
  /// JSON object: where the event came from (webhook, replay, …).
  public var metadata: [UInt8]
  /// JSON: Apple's verified claims the facts were made from, kept as evidence.
  public var claims: [UInt8]?

  public init(
    eventType: String, idempotencyKey: String, payload: [UInt8], environment: String? = nil,
    appleSignedAt: Date? = nil, rawSigned: String? = nil, metadata: [UInt8] = Array("{}".utf8),
    claims: [UInt8]? = nil
  ) {
    self.eventType = eventType
    self.idempotencyKey = idempotencyKey
    self.payload = payload
    self.environment = environment
    self.appleSignedAt = appleSignedAt
    self.rawSigned = rawSigned
    self.metadata = metadata
    self.claims = claims
  }
}
