import Foundation
import StoreLedger
import StoreLedgerCore

/// `storeledger audit --account`: what one account had at a time, and the events that decided
/// each entitlement.
struct AccountAuditOutput: Encodable {
  let appAccountToken: String
  let asOf: Timestamp
  let entitlements: [EntitlementView]
  let explanations: [Explanation]

  init(_ view: LedgerView, token: String, at time: Timestamp) {
    appAccountToken = token
    asOf = time
    entitlements = view.entitlements(for: token, at: time)
    explanations = entitlements.compactMap {
      view.explainEntitlement($0.entitlement, for: token, at: time)
    }
  }

  var text: String {
    var lines = ["\(appAccountToken) at \(asOf.date.formatted(.iso8601)):"]
    if explanations.isEmpty { lines.append("  no entitlements") }
    for explanation in explanations {
      lines.append("  \(explanation.subject): \(explanation.answer) — \(explanation.rule)")
      for source in explanation.because {
        lines.append("    \(source.subject): \(source.answer) — \(source.rule)")
        for event in source.events {
          let dated = event.dated { $0.date.formatted(.iso8601) }
          lines.append(
            "      \(event.notification ?? event.eventType) \(dated)"
              + (event.transactionId.map { " transaction \($0)" } ?? ""))
        }
      }
    }
    return lines.joined(separator: "\n")
  }
}
