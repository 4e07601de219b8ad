import Foundation
import StoreLedgerCore
import StoreLedgerPostgres

extension ChangeDeliveryLog {
  /// The delivery log, newest first: of one endpoint (its key) and one state (pending,
  /// delivered, dead) when given.
  /// Every endpoint's delivery of the changes at `positions` (what became of an account's).
  public func changeDeliveries(ofPositions positions: [Int64]) async throws(LedgerError)
    -> [ChangeDelivery]
  {
    guard !positions.isEmpty else { return [] }
    let queue = ledger.storage.deliveries
    return try await ledger.storage.run { try await queue.deliveries(ofPositions: positions) }
  }

  public func changeDeliveries(endpoint: String? = nil, state: String? = nil, limit: Int = 100)
    async throws(LedgerError) -> [ChangeDelivery]
  {
    if let state, !["pending", "delivered", "dead"].contains(state) {
      throw LedgerError(.invalidRequest, "state is pending, delivered or dead")
    }
    guard (1...1000).contains(limit) else {
      throw LedgerError(.invalidRequest, "limit must be between 1 and 1000")
    }
    let queue = ledger.storage.deliveries
    return try await ledger.storage.run {
      try await queue.deliveries(endpoint: endpoint, state: state, limit: limit)
    }
  }

  /// Per endpoint: delivered, retrying, waiting and dead deliveries, and the lag.
  public func changeDeliveryCounts() async throws(LedgerError) -> [ChangeDeliveryCounts] {
    let queue = ledger.storage.deliveries
    return try await ledger.storage.run { try await queue.counts() }
  }

  /// Sends `endpoint`'s changes from `position` on again (delivered and dead ones too);
  /// returns how many were queued. An unknown endpoint is `notFound`.
  public func resendChanges(to endpoint: String, from position: Int64)
    async throws(LedgerError) -> Int
  {
    guard position >= 1 else { throw LedgerError(.invalidRequest, "positions start at 1") }
    let head = try await ChangeFeedReader(ledger: ledger).head()
    guard position <= head else {
      throw ChangeFeedReader.beyondFeed(position, head: head)
    }
    try await requireEndpoint(endpoint)
    let queue = ledger.storage.deliveries
    let queued = try await ledger.storage.run {
      try await queue.resend(endpoint, from: position)
    }
    ledger.views.changesAppended.signal()
    return queued
  }

  /// Sends `endpoint`'s changes recorded since `time` again.
  public func resendChanges(to endpoint: String, since time: Date) async throws(LedgerError)
    -> Int
  {
    let feed = ledger.storage.changes
    let first = try await ledger.storage.run { try await feed.firstPosition(recordedSince: time) }
    try await requireEndpoint(endpoint)
    guard first <= (try await ChangeFeedReader(ledger: ledger).head()) else { return 0 }
    return try await resendChanges(to: endpoint, from: first)
  }

  private func requireEndpoint(_ endpoint: String) async throws(LedgerError) {
    let known = try await changeDeliveryCounts().map(\.endpoint)
    guard known.contains(endpoint) else {
      throw LedgerError(
        .notFound,
        "no changes webhook has the key \(endpoint) (see `storeledger changes endpoints`)")
    }
  }
}
