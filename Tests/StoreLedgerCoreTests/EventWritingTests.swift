import Foundation
import Testing

@testable import StoreLedgerCore

/// Every event the ledger appends is made by the codec's write side: what it writes, its read
/// side reads back, and the metadata has one shape whoever wrote the event.
struct EventWritingTests {
  @Test func metadataNamesTheSourceAndKeepsAnOtherwiseShapedBodyAsItCame() throws {
    #expect(
      String(decoding: EventCodec.metadata(source: "webhook"), as: UTF8.self)
        == #"{"source":"webhook"}"#)
    let body = #"{"signedPayload":"a.b.c","note":"line\nbreak \"quoted\""}"#
    let bytes = EventCodec.metadata(source: "web\"hook", body: body)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: String])
    #expect(object == ["body": body, "source": "web\"hook"])
  }

  @Test func aLedgerEventIsWrittenUnderItsTypeAndReadBackAsItsFacts() throws {
    let debit = ConsumableDebited(
      id: "k1", appAccountToken: "7E3FB20B-4CDB-47CC-936D-99D65F608138", productId: "coins",
      quantity: 3, debitedAt: Timestamp(milliseconds: 1_800_000_000_000))
    let event = EventCodec.newEvent(
      .debit(debit), key: "debit:k1", source: "api", appleSignedAt: nil)
    #expect(event.eventType == ConsumableDebited.eventType)
    #expect(event.idempotencyKey == "debit:k1")
    #expect(event.claims == nil && event.rawSigned == nil)
    #expect(event.metadata == EventCodec.metadata(source: "api"))
    #expect(
      try EventCodec.body(eventType: event.eventType, payload: event.payload) == .debit(debit))
  }

  @Test func aRecordBesideTheEvidenceKeepsItsPayloadAndTypeAndIsNoLedgerEvent() {
    let record = EventCodec.newRecord(
      Array(#"{"action":"x"}"#.utf8), type: EventTypes.refundConsent, key: "consent:1",
      source: "api", environment: "Sandbox")
    #expect(record.eventType == EventTypes.refundConsent)
    #expect(record.payload == Array(#"{"action":"x"}"#.utf8))
    #expect(record.environment == "Sandbox")
    #expect(!EventCodec.holdsLedgerEvent(record.eventType))
  }
}
