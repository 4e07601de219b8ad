import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

/// `storeledger extend`: renewal-date extensions, one subscription or all of a product's.
struct ExtendCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "extend",
    abstract: "Extend renewal dates: one subscription, every active subscriber, or the status.",
    discussion: """
      One subscription:
        storeledger extend --transaction ORIGINAL_ID --days 7 --reason 3
      Every subscriber:
        storeledger extend --product com.example.pro --days 7 --reason 3 \\
          [--storefront USA,CAN]
      A mass extension's status and what the log holds of its notifications:
        storeledger extend --status --product com.example.pro --request-id ID

      Reasons: 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage. \
      Apple extends by at most 90 days, at most twice per customer in 365 days. Retrying is \
      safe: without --request-id the same request on the same (UTC) day gets the same \
      identifier, and Apple answers it as the first time; name one to extend twice in a day. \
      Every request is recorded in the log (stream extension:<request id>).
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Option(help: "The subscription's originalTransactionId.") var transaction: String?
  @Option(help: "Every active subscriber of this product.") var product: String?
  @Option(help: "Days, 1 to 90.") var days: Int32?
  @Option(help: "0 undeclared, 1 customer satisfaction, 2 other, 3 service issue/outage.")
  var reason: Int32 = 3
  @Option(help: "Comma-separated ISO alpha-3 storefronts (mass extension only).")
  var storefront: String?
  @Option(
    name: .customLong("request-id"),
    help: "The request identifier (default: derived from the request and the day).")
  var requestId: String?
  @Flag(help: "Show a mass extension's status.") var status = false
  @Flag(help: "Print JSON.") var json = false

  func validate() throws {
    if status {
      guard product != nil, requestId != nil else {
        throw ValidationError("--status needs --product and --request-id")
      }
      return
    }
    guard (transaction == nil) != (product == nil) else {
      throw ValidationError("give --transaction ORIGINAL_ID or --product PRODUCT_ID")
    }
    guard days != nil else { throw ValidationError("give --days (1 to 90)") }
  }

  func run() async throws {
    let options = self
    let report = try await ledger.withLedger("storeledger.extend") { ledger, logger in
      let (client, _) = try options.api.client(for: ledger, options: self.ledger, logger: logger)
      if options.status, let product = options.product, let id = options.requestId {
        return try await AppleActions(ledger: ledger).extensionStatus(
          productId: product, requestIdentifier: id, apple: client)
      }
      if let transaction = options.transaction {
        return try await AppleActions(ledger: ledger).extendRenewalDate(
          originalTransactionId: transaction, days: options.days ?? 0, reason: options.reason,
          requestIdentifier: options.requestId, apple: client)
      }
      return try await AppleActions(ledger: ledger).extendAllSubscribers(
        productId: options.product ?? "", days: options.days ?? 0, reason: options.reason,
        storefronts: options.storefront.map { $0.split(separator: ",").map(String.init) },
        requestIdentifier: options.requestId, apple: client)
    }
    say(json ? try CommandJSON.string(report) : Self.text(report))
  }

  static func text(_ report: ExtensionReport) -> String {
    if let original = report.originalTransactionId {
      return "extended \(original) by \(report.extendByDays ?? 0) days: it now renews "
        + (report.effectiveDate?.date.formatted(.iso8601) ?? "?")
        + " (request \(report.requestIdentifier); \(report.renewalExtendedStored ?? 0) "
        + "RENEWAL_EXTENDED stored so far)"
    }
    if let complete = report.complete {
      return "mass extension \(report.requestIdentifier) of \(report.productId ?? ""): "
        + (complete ? "complete" : "in progress") + ", \(report.succeededCount ?? 0) extended, "
        + "\(report.failedCount ?? 0) failed; summary notification "
        + (report.summaryStored == true ? "stored" : "not in the log yet")
    }
    return "requested mass extension \(report.requestIdentifier) of \(report.productId ?? "") by "
      + "\(report.extendByDays ?? 0) days; follow it with --status"
  }
}
