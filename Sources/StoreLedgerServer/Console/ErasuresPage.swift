import Foundation
import StoreLedger
import StoreLedgerCore

/// The erasures the log records: when, who asked, why, how much, and whether the log's erased
/// rows are still exactly those each erasure recorded.
struct ErasuresPage {
  let erasures: [ErasureRecord]

  func render(into html: inout HTML) {
    html.element(
      "p",
      text: "An erasure turns a customer's rows into tombstones that keep their place and hash, "
        + "and deletes what was derived from them; the audit checks each erasure against the "
        + "log. Erase with `storeledger erase TOKEN --reason …` (the database's owner role).")
    guard !erasures.isEmpty else {
      html.element("p", ["id": "erasures-none"], text: "No account has been erased.")
      return
    }
    html.table(
      caption: nil,
      headers: [
        "Erased", "Erasure", "Requested by", "Reason", "Accounts", "Rows", "Later data",
        "Matches the log",
      ],
      rows: erasures.reversed(), id: "erasures"
    ) { html, record in
      html.cell(record.erasedAt.formatted(.iso8601))
      html.cell(record.erasureId.uuidString.lowercased())
      html.cell(record.requestedBy)
      html.cell(record.reason)
      html.cell("\(record.accounts)")
      html.cell("\(record.recordedRows)")
      html.cell(record.later?.rawValue ?? "-")
      html.cell(record.isIntact ? "yes" : "NO: \(record.foundRows) rows found")
    }
  }
}
