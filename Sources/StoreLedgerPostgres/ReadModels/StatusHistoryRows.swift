import Foundation
import StoreLedgerCore

/// The status histories of stored views as `storeledger.replace_status_history` takes them: the
/// accounts whose history is given, and every entry as one JSON array.
struct StatusHistoryRows {
  let tokens: [String]
  let json: String

  init(_ views: [ProjectedAccountView]) {
    let given = views.filter { $0.history != nil }
    tokens = given.map(\.token)
    var writer = JSONTextWriter()
    writer.array(given.flatMap { $0.history ?? [] }) { json, entry in
      json.object {
        $0.member("token", entry.appAccountToken)
        $0.member("ordinal", entry.ordinal)
        $0.member("subscription", entry.originalTransactionId)
        $0.member("from_status", entry.from)
        $0.member("to_status", entry.to)
        $0.member("effective_ms", entry.effectiveAt)
        $0.member("recorded_ms", entry.recordedAt)
        $0.member("cause", entry.cause)
      }
    }
    json = writer.text
  }
}
