import Foundation

/// The write side of the codec: every event the ledger appends is made here, so its facts,
/// Apple's claims beside them and its metadata have one shape whoever writes them.
extension EventCodec {
  /// The metadata of an event: who wrote it (`source`: `webhook`, `replay`, `api`, …) and,
  /// for a notification Apple sent in another body than the plain `{"signedPayload":"…"}`,
  /// that body as it came (a relay sends it on unchanged).
  public static func metadata(source: String, body: String? = nil) -> [UInt8] {
    let source = "\"source\":\(JSONTextWriter.quoted(source))"
    guard let body else { return Array("{\(source)}".utf8) }
    return Array("{\"body\":\(JSONTextWriter.quoted(body)),\(source)}".utf8)
  }

  /// An event of the ledger: the facts of `body` under the type it names, with Apple's
  /// `claims` and the JWS they came from when Apple signed it.
  public static func newEvent(
    _ body: LedgerEvent.Body, key: String, source: String, body httpBody: String? = nil,
    environment: String? = nil, appleSignedAt: Date? = nil, rawSigned: String? = nil,
    claims: [UInt8]? = nil
  ) -> NewEvent {
    NewEvent(
      eventType: body.eventType, idempotencyKey: key, payload: payload(of: body),
      environment: environment, appleSignedAt: appleSignedAt, rawSigned: rawSigned,
      metadata: metadata(source: source, body: httpBody), claims: claims)
  }

  /// A refund request's event (opened by a notification, then answered and decided).
  public static func newEvent(_ event: ConsumptionEvent, key: String, source: String)
    -> NewEvent
  {
    let environment: String? =
      if case .requested(let requested) = event { requested.environment } else { nil }
    return NewEvent(
      eventType: event.eventType, idempotencyKey: key, payload: payload(of: event),
      environment: environment, metadata: metadata(source: source))
  }

  /// A record the ledger keeps beside Apple's evidence — an action taken at Apple, a
  /// consent, a relay target or attempt, a replay's progress: its JSON `payload` under its
  /// own type. None of them decides an entitlement.
  public static func newRecord(
    _ payload: [UInt8], type: String, key: String, source: String, environment: String? = nil
  ) -> NewEvent {
    NewEvent(
      eventType: type, idempotencyKey: key, payload: payload, environment: environment,
      metadata: metadata(source: source))
  }
}
