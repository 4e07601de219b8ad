import AppStoreServerAPI
import AppStoreVerification
import Foundation
import Logging
import StoreLedgerCore

/// Compares what the log says of each subscription with what the App Store says now (Get All
/// Subscription Statuses), at the time Apple signed its answer. A disagreement is recorded as
/// evidence (a status observation with Apple's signed transaction and renewal info) next to the
/// history, never over it; the projection then folds it like any other event.
public struct Reconciliation: Sendable {
  public struct Disagreement: Sendable, Hashable, Codable {
    public var originalTransactionId: String
    /// Ours before the evidence; nil when the log did not know the subscription.
    public var ledger: Int32?
    public var appStore: Int32?
  }

  public struct Report: Sendable, Hashable, Codable {
    public var compared = 0
    public var agreed = 0
    public var disagreements: [Disagreement] = []
    /// Evidence events stored (a repeated run stores none for the same answer).
    public var recorded = 0

    public init() {}
  }

  let reader: AccountReader
  let writer: AccountWriter
  let configuration: LedgerConfiguration
  let client: AppStoreServerAPIClient
  let logger: Logger

  /// Reconciles the subscriptions of the customers of `anyTransactionIds`.
  public func reconcile(_ anyTransactionIds: [String]) async throws -> Report {
    var report = Report()
    var seen = Set<String>()
    for id in anyTransactionIds {
      for entry in try await client.subscriptionStatuses(id) {
        guard let original = entry.renewalInfo.payload.originalTransactionId,
          seen.insert(original).inserted
        else { continue }
        try await reconcile(entry, original, into: &report)
      }
    }
    return report
  }

  private func reconcile(
    _ entry: SubscriptionStatusEntry, _ original: String, into report: inout Report
  ) async throws {
    report.compared += 1
    let time =
      [entry.transaction.payload.signedDate, entry.renewalInfo.payload.signedDate]
      .compactMap { $0 }.max() ?? Timestamp(Date())
    let ours = try await chainView(of: original).subscription(original, at: time)?.status
    guard ours != entry.status?.rawValue else {
      report.agreed += 1
      return
    }
    report.disagreements.append(
      Disagreement(
        originalTransactionId: original, ledger: ours, appStore: entry.status?.rawValue))
    let record = try LedgerRecord.status(
      entry.status, transaction: entry.transaction, renewalInfo: entry.renewalInfo,
      source: "reconcile")
    let tokens = [
      entry.transaction.payload.appAccountToken, entry.renewalInfo.payload.appAccountToken,
    ]
    if try await !writer.append(record, accounts: tokens.compactMap { $0 }).wasDuplicate {
      report.recorded += 1
    }
  }
}

extension Reconciliation {
  /// The folded purchase chain `originalTransactionId`, in every configured environment.
  func chainView(of originalTransactionId: String) async throws -> LedgerView {
    try await reader.view(
      ofStreams: configuration.purchaseStreams(ofChain: originalTransactionId),
      skippingErased: false)
  }
}
