import AppStoreServerAPI
import AppStoreSimulator
import Foundation
import Logging
import StoreLedger
import StoreLedgerCore

/// The demo's other calls on Apple after the refunds: customers whose app never set a token
/// migrated from their StoreKit 1 receipts, a renewal-date extension for every active
/// subscriber of the busiest product after a (pretend) outage, and an order lookup.
struct DemoWriteSide {
  let store: SimulatedAppStore
  let ledger: Ledger
  let api: AppStoreServerAPIClient
  /// The In-App Purchase key, which also signs promotional offers.
  let key: APIKey
  let webhook: String
  let customers: [SimulationTruth.Customer]
  let seed: UInt64
  let logger: Logger

  struct Result {
    var receipts: ReceiptImport.Report
    /// The accounts made from receipts: token → the simulator's customer id.
    var migrated: [String: String]
    var renewalExtension: ExtensionReport
    var orderLookup: String
    var webhookCheck: WebhookCheck
    /// Accounts whose offer eligibility was read, and whether an offer was signed.
    var offersChecked: Int
    var offerSigned: Bool
  }

  func run() async throws -> Result {
    let deliverer = NotificationDeliverer(store: store, webhookURL: webhook, logger: logger)
    let (receipts, migrated) = await migrateReceipts()
    let extended = try await AppleActions(ledger: ledger).extendAllSubscribers(
      productId: "pro.monthly", days: 3, reason: 3, requestIdentifier: "demo-outage-\(seed)",
      apple: api)
    await deliverer.deliverPending()
    let status = try await AppleActions(ledger: ledger).extensionStatus(
      productId: "pro.monthly", requestIdentifier: extended.requestIdentifier, apple: api)
    let check = try await checkWebhook(deliverer)
    let (checked, signed) = try await offers()
    return Result(
      receipts: receipts, migrated: migrated, renewalExtension: status,
      orderLookup: await lookUpAnOrder(), webhookCheck: check, offersChecked: checked,
      offerSigned: signed)
  }

  /// Request a Test Notification while the deliverer runs, and wait until the log holds it.
  private func checkWebhook(_ deliverer: NotificationDeliverer) async throws -> WebhookCheck {
    let delivering = Task {
      while !Task.isCancelled {
        await deliverer.deliverPending()
        try? await Task.sleep(for: .milliseconds(50))
      }
    }
    defer { delivering.cancel() }
    return try await AppleActions(ledger: ledger).checkWebhook(
      apple: api, timeout: .seconds(30), poll: .milliseconds(50))
  }

  /// Offer eligibility of up to 20 accounts, and one promotional offer signed.
  private func offers() async throws -> (Int, Bool) {
    let tokens = try await SupportQueries(ledger: ledger).accountTokens(limit: 20)
    for token in tokens { _ = try await AppleActions(ledger: ledger).offerEligibility(for: token) }
    guard let first = tokens.first else { return (0, false) }
    _ = try await AppleActions(ledger: ledger).signPromotionalOffer(
      for: first, productId: "pro.monthly", offerIdentifier: "DEMO-COMEBACK", key: key)
    return (tokens.count, true)
  }

  /// Up to 20 customers without a token: their first purchase's receipt, a new token each.
  private func migrateReceipts() async -> (ReceiptImport.Report, [String: String]) {
    let tokenless = customers.filter { $0.appAccountToken == nil }.prefix(20)
    var owners: [String] = []
    let items = tokenless.compactMap { customer -> ReceiptImport.Item? in
      guard let id = store.firstTransactionId(of: customer.id) else { return nil }
      var digest = StableDigest()
      digest.add("demo-receipt-token:\(seed):\(customer.id)")
      let hex = String(format: "%016llx", digest.value)
      let token =
        "\(hex.prefix(8))-\(hex.dropFirst(8).prefix(4))-4\(hex.dropFirst(13).prefix(3))-8000-\(hex.prefix(12))"
      owners.append(customer.id)
      return ReceiptImport.Item(
        receipt: SimulatedReceipt.appReceipt(transactionId: id), appAccountToken: token)
    }
    let report = await ReceiptImport(
      ledger: ledger, client: api, environment: .sandbox, logger: logger
    ).run(items)
    var migrated: [String: String] = [:]
    for outcome in report.outcomes where outcome.kind != .failed {
      if let token = items[outcome.line - 1].appAccountToken {
        migrated[token] = owners[outcome.line - 1]
      }
    }
    return (report, migrated)
  }

  /// Apple offers Look Up Order ID in Production only; the demo runs in Sandbox and shows the
  /// answer a support person would get there.
  private func lookUpAnOrder() async -> String {
    guard let id = customers.lazy.compactMap({ store.firstTransactionId(of: $0.id) }).first else {
      return "no purchase to look up"
    }
    do {
      let report = try await AppleActions(ledger: ledger).lookUpOrder(
        SimulatedAppStore.orderId(of: id), apple: api)
      return "\(report.purchases.count) purchases, \(report.accounts.count) accounts"
    } catch  where error.message.contains("Production only") {
      return "skipped in the Sandbox (Apple offers Look Up Order ID in Production only)"
    } catch {
      return error.message
    }
  }
}
