import Foundation
import StoreLedgerPostgres
import StoreLedgerCore

/// Small events for tests.
enum Events {
  static func make(_ key: String, type: String = "test.happened.v1", payload: String? = nil)
    -> NewEvent
  {
    NewEvent(
      eventType: type, idempotencyKey: key,
      payload: Array((payload ?? #"{"key":"\#(key)","amount":1}"#).utf8), environment: "Sandbox",
      appleSignedAt: Date(timeIntervalSince1970: 1_748_736_000.123), rawSigned: "h.p.s")
  }

  static func batch(_ prefix: String, _ count: Int) -> [NewEvent] {
    (0..<count).map { make("\(prefix)-\($0)") }
  }
}
