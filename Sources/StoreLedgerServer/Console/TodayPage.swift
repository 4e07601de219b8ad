import Foundation
import StoreLedger
import StoreLedgerCore

/// What is happening across accounts: the newest changes of the feed and the newest rows of
/// the log, each linked to its account. The page reloads itself every ``refreshSeconds``.
struct TodayPage {
  let changes: [ChangeRecord]
  let events: [LogEntrySummary]
  let base: String

  static let refreshSeconds = 15
  static let shown = 50

  func render(into html: inout HTML) {
    html.element(
      "p", ["class": "notice"],
      text: "Newest first; this page reloads every \(Self.refreshSeconds) seconds.")
    html.element("h2", text: "Changes")
    if changes.isEmpty {
      html.element("p", ["id": "today-no-changes"], text: "No change yet.")
    } else {
      html.table(
        caption: nil,
        headers: ["Recorded", "Took effect", "Customer", "Change", "About", "From", "To"],
        rows: changes, id: "today-changes"
      ) { html, record in
        let kind = record.change.kind
        html.cell(record.recordedAt.formatted(.iso8601))
        html.cell(record.effectiveAt?.date.formatted(.iso8601) ?? "-")
        account(&html, record.change.appAccountToken)
        html.cell(kind.rawValue)
        html.cell(record.change.subject)
        html.cell(kind.carriesMoney ? "" : AccountPage.value(record.change.old, of: kind) ?? "")
        html.cell(kind.carriesMoney ? "" : AccountPage.value(record.change.new, of: kind) ?? "")
      }
    }
    html.element("h2", text: "Events stored")
    if events.isEmpty {
      html.element("p", ["id": "today-no-events"], text: "The log is empty.")
    } else {
      html.table(
        caption: nil, headers: ["Recorded", "What", "Customer", "Stream"], rows: events,
        id: "today-events"
      ) { html, event in
        html.cell(event.recordedAt.formatted(.iso8601))
        html.cell(event.notification.map { "\(event.eventType) \($0)" } ?? event.eventType)
        if event.accounts.isEmpty {
          html.cell("none (unrouted)")
        } else {
          html.element("td") { html in
            for (index, token) in event.accounts.enumerated() {
              if index > 0 { html.text(", ") }
              html.element("a", ["href": "\(base)/accounts/\(token)"], text: token)
            }
          }
        }
        html.cell(event.streamId)
      }
    }
  }

  private func account(_ html: inout HTML, _ token: String?) {
    guard let token, !token.isEmpty else {
      html.cell("-")
      return
    }
    html.element("td") { html in
      html.element("a", ["href": "\(base)/accounts/\(token)"], text: token)
    }
  }
}
