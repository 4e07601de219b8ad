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
    let (client, logger) = (try ledger.storage.database().client, ledger.storage.logger)
    return try await ledger.storage.run {
      try await ChangeDeliveries.log(positions: positions, on: client, logger: logger)
    }
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
    let (client, logger) = (try ledger.storage.database().client, ledger.storage.logger)
    do {
      return try await ledger.storage.bounded {
        try await ChangeDeliveries.log(
          endpoint: endpoint, state: state, limit: limit, on: client, logger: logger)
      }
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// Per endpoint: delivered, retrying, waiting and dead deliveries, and the lag.
  public func changeDeliveryCounts() async throws(LedgerError) -> [ChangeDeliveryCounts] {
    let (client, logger) = (try ledger.storage.database().client, ledger.storage.logger)
    do {
      return try await ledger.storage.bounded {
        try await ChangeDeliveries.counts(on: client, logger: logger)
      }
    } catch {
      throw LedgerStorage.mapped(error)
    }
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
    let (client, logger) = (try ledger.storage.database().client, ledger.storage.logger)
    do {
      let queued = try await ledger.storage.bounded {
        try await ChangeDeliveries.resend(endpoint, from: position, on: client, logger: logger)
      }
      ledger.views.changesAppended.signal()
      return queued
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// Sends `endpoint`'s changes recorded since `time` again.
  public func resendChanges(to endpoint: String, since time: Date) async throws(LedgerError)
    -> Int
  {
    let (client, logger) = (try ledger.storage.database().client, ledger.storage.logger)
    let first: Int64
    do {
      first = try await ledger.storage.bounded {
        try await ChangeFeed.firstPosition(recordedSince: time, on: client, logger: logger)
      }
    } catch {
      throw LedgerStorage.mapped(error)
    }
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
