import AppStoreServerAPI
import AppStoreVerification
import Foundation
import Logging
import StoreLedgerCore

/// Rebuilds customers from the App Store: Get Transaction History v2 (ascending, from the
/// revision the last run stored) and Get All Subscription Statuses (current renewal infos),
/// every signed item ingested through the same path as the webhook, marked `replay`. The
/// revision reached is stored as an event after each page, so a run cut short resumes where
/// it stopped, and a second run fetches only what changed.
public struct CustomerReplay: Sendable {
  /// Which customers to replay.
  public enum Customers: Sendable, Hashable {
    /// The customers of these transaction ids (any id of a customer finds all of it).
    case transactions([String])
    /// The purchase chains the log links to this account.
    case account(String)
    /// Every purchase chain the log knows.
    case everyone
  }

  public struct Report: Sendable, Hashable, Codable {
    /// Apple accounts replayed (chains of one customer count once).
    public var customers = 0
    public var pages = 0
    public var transactionsFetched = 0
    public var renewalInfosFetched = 0
    /// Refunded transactions from Get Refund History (refunds a lost notification never told).
    public var refundsFetched = 0
    /// Stored now for the first time.
    public var appended = 0
    public var alreadyStored = 0
    /// Refused by the ledger, by error code.
    public var rejected: [String: Int] = [:]
    /// Unrouted notifications read again before the replay (see ``LedgerMaintenance/reexamineUnrouted()``);
    /// nil when only some customers were replayed.
    public var unrouted: LedgerMaintenance.Reexamination?

    public init() {}

    mutating func add(_ other: Report) {
      customers += other.customers
      pages += other.pages
      transactionsFetched += other.transactionsFetched
      renewalInfosFetched += other.renewalInfosFetched
      refundsFetched += other.refundsFetched
      appended += other.appended
      alreadyStored += other.alreadyStored
      rejected.merge(other.rejected, uniquingKeysWith: +)
    }
  }

  static let revisionEventType = EventTypes.replayRevision

  let ledger: Ledger
  let client: AppStoreServerAPIClient
  let environment: AppStoreEnvironment
  let concurrency: Int
  let logger: Logger

  /// - Parameters:
  ///   - environment: the environment the client's base URL serves (its streams are read).
  ///   - concurrency: customers replayed at once (each makes its calls one after another).
  public init(
    ledger: Ledger, client: AppStoreServerAPIClient, environment: AppStoreEnvironment,
    concurrency: Int = 4, logger: Logger
  ) {
    self.ledger = ledger
    self.client = client
    self.environment = environment
    self.concurrency = max(1, concurrency)
    self.logger = logger
  }

  public func replay(
    _ customers: Customers, progress: @Sendable (Report) -> Void = { _ in }
  ) async throws -> Report {
    var pending = try await startingIds(customers)
    var covered = Set<String>()
    var groups: [Set<String>] = []
    var report = Report()
    if case .everyone = customers {
      report.unrouted = try await LedgerMaintenance(ledger: ledger).reexamineUnrouted()
    }
    while !pending.isEmpty {
      let batch = Array(pending.prefix(concurrency))
      pending.removeFirst(batch.count)
      let results = try await withThrowingTaskGroup(of: (Report, Set<String>).self) { group in
        for id in batch { group.addTask { try await replayCustomer(from: id) } }
        var results: [(Report, Set<String>)] = []
        for try await result in group { results.append(result) }
        return results
      }
      for (customer, originals) in results {
        report.add(customer)
        covered.formUnion(originals)
        groups.append(originals)
      }
      pending.removeAll { covered.contains($0) }
      report.customers = Self.distinctCustomers(groups)
      progress(report)
    }
    return report
  }

  /// Two starting ids replayed at once can belong to one customer: chains that share an id
  /// are one customer.
  static func distinctCustomers(_ groups: [Set<String>]) -> Int {
    var merged: [Set<String>] = []
    for group in groups {
      var joined = group
      merged.removeAll { other in
        guard !other.isDisjoint(with: joined) else { return false }
        joined.formUnion(other)
        return true
      }
      merged.append(joined)
    }
    return merged.count
  }

  /// One customer: history from the stored revision, then the statuses. Returns the chains
  /// it covered.
  func replayCustomer(from id: String) async throws -> (Report, Set<String>) {
    var report = Report()
    report.customers = 1
    let stream = "replay:\(environment.rawValue):\(id)"
    let stored = try await storedProgress(stream)
    var originals = Set([id] + (stored?.originals ?? []))
    var request = TransactionHistoryRequest()
    request.sort = .ascending
    for try await page in client.transactionHistory(
      id, request: request, revision: stored?.revision)
    {
      report.pages += 1
      for transaction in page.transactions {
        report.transactionsFetched += 1
        originals.insert(transaction.payload.originalTransactionId ?? id)
        await count(&report) {
          try await ledger.ingest(
            signedTransaction: transaction.compactJWS, source: "replay", freshlyFetched: true)
        }
      }
      if let revision = page.revision {
        try await store(
          Progress(
            anyTransactionId: id, revision: revision, originals: originals.sorted(),
            refundRevision: stored?.refundRevision), in: stream)
      }
    }
    try await replayRefunds(of: id, from: stored, originals: originals, into: &report)
    for entry in try await client.subscriptionStatuses(id) {
      report.renewalInfosFetched += 1
      await count(&report) {
        try await ledger.ingest(
          signedRenewalInfo: entry.renewalInfo.compactJWS, source: "replay", freshlyFetched: true)
      }
      await count(&report) {
        try await ledger.ingest(
          signedTransaction: entry.transaction.compactJWS, source: "replay", freshlyFetched: true)
      }
    }
    return (report, originals)
  }

  /// Get Refund History from the refund revision the last run stored: every refund Apple
  /// granted, including those whose REFUND notification never arrived.
  private func replayRefunds(
    of id: String, from stored: Progress?, originals: Set<String>, into report: inout Report
  ) async throws {
    let stream = "replay:\(environment.rawValue):\(id)"
    var revision = stored?.refundRevision
    for try await page in client.refundHistory(id, revision: revision) {
      for transaction in page.transactions {
        report.refundsFetched += 1
        await count(&report) {
          try await ledger.ingest(
            signedTransaction: transaction.compactJWS, source: "replay", freshlyFetched: true)
        }
      }
      revision = page.revision ?? revision
    }
    guard let revision, revision != stored?.refundRevision else { return }
    var progress =
      try await storedProgress(stream)
      ?? Progress(anyTransactionId: id, revision: "", originals: originals.sorted())
    progress.refundRevision = revision
    try await store(progress, in: stream)
  }

  private func count(_ report: inout Report, _ ingest: () async throws -> Ledger.Ingested) async {
    do {
      if try await ingest().wasDuplicate { report.alreadyStored += 1 } else { report.appended += 1 }
    } catch let error as LedgerError {
      report.rejected[error.code.rawValue, default: 0] += 1
    } catch {
      report.rejected["unknown", default: 0] += 1
    }
  }
}
