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
///
/// The revision is stored only once every item of its page is: an item the database could
/// not take (unavailable, refused) is never counted as rejected and passed. Through an outage
/// such as a failover the replay waits for the database (up to ``databaseWait``) and goes on;
/// after that it stops with the error, and the next run resumes from the last page stored.
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

  /// Verifies and stores what Apple's answers carry.
  let ingestion: SignedDataIngest
  /// Finds the purchase chains to start from; routes evidence a newer release can read.
  let maintenance: LedgerMaintenance
  /// Each customer's progress, in its own stream.
  let log: any EventLog
  let client: AppStoreServerAPIClient
  let environment: AppStoreEnvironment
  let concurrency: Int
  /// How long a statement is tried again while the database is unavailable.
  let databaseWait: Duration
  let logger: Logger

  init(
    ingestion: SignedDataIngest, maintenance: LedgerMaintenance, log: any EventLog,
    client: AppStoreServerAPIClient, environment: AppStoreEnvironment, concurrency: Int,
    databaseWait: Duration, logger: Logger
  ) {
    self.ingestion = ingestion
    self.maintenance = maintenance
    self.log = log
    self.client = client
    self.environment = environment
    self.concurrency = max(1, concurrency)
    self.databaseWait = databaseWait
    self.logger = logger
  }

  public func replay(
    _ customers: Customers, progress: @Sendable (Report) -> Void = { _ in }
  ) async throws -> Report {
    let rounds = try await whileUnavailable { try await startingIds(customers) }
    var report = Report()
    if case .everyone = customers {
      report.unrouted = try await whileUnavailable {
        try await maintenance.reexamineUnrouted()
      }
    }
    var chains = ChainGroups()
    for pending in rounds {
      // A window of `concurrency` customers: the next one starts as soon as any finishes,
      // so one slow customer does not hold the others back. An id whose chain a finished
      // customer already covered is not started.
      var next = pending.startIndex
      try await withThrowingTaskGroup(of: (Report, Set<String>).self) { group in
        var running = 0
        while true {
          while running < concurrency, next < pending.endIndex {
            let id = pending[next]
            next += 1
            guard !chains.contains(id) else { continue }
            group.addTask { try await replayCustomer(from: id) }
            running += 1
          }
          guard let (customer, originals) = try await group.next() else { break }
          running -= 1
          report.add(customer)
          // Two starting ids replayed at once can belong to one customer: chains that share
          // an id are one customer.
          chains.join(originals)
          report.customers = chains.count
          progress(report)
        }
      }
    }
    return report
  }

  /// One customer: history from the stored revision, then the statuses. Returns the chains
  /// it covered.
  func replayCustomer(from id: String) async throws -> (Report, Set<String>) {
    var report = Report()
    report.customers = 1
    let stream = "replay:\(environment.rawValue):\(id)"
    let stored = try await whileUnavailable { try await storedProgress(stream) }
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
        try await count(&report) {
          try await ingestion.ingest(
            signedTransaction: transaction.compactJWS, source: "replay", freshlyFetched: true)
        }
      }
      if let revision = page.revision {
        let progress = Progress(
          anyTransactionId: id, revision: revision, originals: originals.sorted(),
          refundRevision: stored?.refundRevision)
        try await whileUnavailable { try await store(progress, in: stream) }
      }
    }
    try await replayRefunds(of: id, from: stored, originals: originals, into: &report)
    for entry in try await client.subscriptionStatuses(id) {
      report.renewalInfosFetched += 1
      try await count(&report) {
        try await ingestion.ingest(
          signedRenewalInfo: entry.renewalInfo.compactJWS, source: "replay", freshlyFetched: true)
      }
      try await count(&report) {
        try await ingestion.ingest(
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
        try await count(&report) {
          try await ingestion.ingest(
            signedTransaction: transaction.compactJWS, source: "replay", freshlyFetched: true)
        }
      }
      revision = page.revision ?? revision
    }
    guard let revision, revision != stored?.refundRevision else { return }
    var progress =
      try await whileUnavailable { try await storedProgress(stream) }
      ?? Progress(anyTransactionId: id, revision: "", originals: originals.sorted())
    progress.refundRevision = revision
    let reached = progress
    try await whileUnavailable { try await store(reached, in: stream) }
  }

  /// Counts one ingest: stored, already stored, or rejected for what it is (it does not
  /// verify, names another app…). A database that cannot take it is not a rejection: that
  /// stops the replay before the page's revision is stored.
  private func count(
    _ report: inout Report, _ ingest: () async throws -> IngestReceipt
  ) async throws {
    do {
      let ingested = try await whileUnavailable { try await ingest() }
      if ingested.wasDuplicate { report.alreadyStored += 1 } else { report.appended += 1 }
    } catch {
      let failure = LedgerStorage.mapped(error)
      if Self.databaseFailures.contains(failure.code) { throw failure }
      report.rejected[(error as? LedgerError)?.code.rawValue ?? "unknown", default: 0] += 1
    }
  }

  /// The codes that say the database, not the item, failed.
  static let databaseFailures: Set<LedgerError.Code> = [
    .databaseUnavailable, .databaseRejected, .databasePermissionDenied,
  ]

  /// Runs `body` again while the database is unavailable, up to ``databaseWait`` in all.
  /// Ingests are idempotent: one stored before its answer was lost counts as already stored.
  func whileUnavailable<T>(_ body: () async throws -> T) async throws -> T {
    let deadline = ContinuousClock.now + databaseWait
    var delay = Duration.milliseconds(200)
    while true {
      do {
        return try await body()
      } catch {
        let failure = LedgerStorage.mapped(error)
        guard failure.code == .databaseUnavailable, ContinuousClock.now + delay < deadline else {
          throw error
        }
        logger.info(
          "replay waits for the database", metadata: ["retryIn": "\(delay)"])
        try await Task.sleep(for: delay)
        delay = min(delay * 2, .seconds(5))
      }
    }
  }
}
