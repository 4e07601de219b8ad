import Foundation
import StoreLedgerCore
import StoreLedgerPostgres

extension ChangeDeliveryLog {
  /// Every endpoint's delivery of the changes at `positions` (what became of an account's).
  public func changeDeliveries(ofPositions positions: [Int64]) async throws(LedgerError)
    -> [ChangeDelivery]
  {
    guard !positions.isEmpty else { return [] }
    let queue = deliveries
    return try await calls.run { try await queue.deliveries(ofPositions: positions) }
  }

  /// The delivery log, newest first: of one endpoint (its key) and one state (pending,
  /// delivered, dead) when given (the first page of ``changeDeliveriesPage(_:limit:cursor:)``).
  public func changeDeliveries(
    endpoint: String? = nil, state: DeliveryState? = nil, limit: Int = 100
  ) async throws(LedgerError) -> [ChangeDelivery] {
    try await changeDeliveriesPage(
      ChangeDeliveryFilter(endpoint: endpoint, state: state), limit: limit
    ).rows
  }

  /// The most deliveries a page holds.
  public static let pageLimit = 1000

  /// A page of the deliveries `filter` holds, the newest change first (then by endpoint),
  /// with how many the whole list holds (counted on the first page); `cursor` is the
  /// `nextCursor` of the page before. Every delivery is on exactly one page.
  public func changeDeliveriesPage(
    _ filter: ChangeDeliveryFilter, limit: Int = 100, cursor: String? = nil
  ) async throws(LedgerError) -> ListPage<ChangeDelivery> {
    guard (1...Self.pageLimit).contains(limit) else {
      throw LedgerError(.invalidRequest, "limit must be between 1 and \(Self.pageLimit)")
    }
    let queue = deliveries
    return try await ListPage<ChangeDelivery>.read(
      list: "change-deliveries", filter: filter.text, limit: limit, cursor: cursor,
      key: { parts in
        Int64(parts[0]).map { ChangeDeliveryKey(position: $0, endpoint: parts[1]) }
      },
      read: { (key, count) throws(EventStoreError) in
        try await queue.deliveries(filter, after: key, limit: limit + 1, countTotal: count)
      },
      keyOf: { [String($0.position), $0.endpoint] }, mapped: LedgerStorage.mapped)
  }

  /// Per endpoint: delivered, retrying, waiting and dead deliveries, and the lag.
  public func changeDeliveryCounts() async throws(LedgerError) -> [ChangeDeliveryCounts] {
    let queue = deliveries
    return try await calls.run { try await queue.counts() }
  }

  /// Sends `endpoint`'s changes from `position` on again (delivered and dead ones too);
  /// returns how many were queued. An unknown endpoint is `notFound`.
  public func resendChanges(to endpoint: String, from position: Int64)
    async throws(LedgerError) -> Int
  {
    guard position >= 1 else { throw LedgerError(.invalidRequest, "positions start at 1") }
    let head = try await reader.head()
    guard position <= head else {
      throw ChangeFeedReader.beyondFeed(position, head: head)
    }
    try await requireEndpoint(endpoint)
    let queue = deliveries
    let queued = try await calls.run {
      try await queue.resend(endpoint, from: position)
    }
    reader.writer.changesAppended.signal()
    return queued
  }

  /// Sends `endpoint`'s changes recorded since `time` again.
  public func resendChanges(to endpoint: String, since time: Date) async throws(LedgerError)
    -> Int
  {
    let feed = reader.feed
    let first = try await calls.run { try await feed.firstPosition(recordedSince: time) }
    try await requireEndpoint(endpoint)
    guard first <= (try await reader.head()) else { return 0 }
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
