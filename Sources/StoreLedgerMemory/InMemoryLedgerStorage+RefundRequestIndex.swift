import Foundation
import StoreLedgerCore
import Synchronization

extension InMemoryLedgerStorage: RefundRequestIndex {
  /// One refund request as its stream's events fold it.
  private struct Request {
    var stream: String
    var request: ConsumptionRequest
  }

  public func dueRequests(now: Int64, limit: Int) async throws(EventStoreError) -> [String] {
    requests().filter { ($0.request.dueAt?.milliseconds).map { $0 <= now } ?? false }
      .sorted {
        ($0.request.deadline.milliseconds, $0.stream) < (
          $1.request.deadline.milliseconds, $1.stream
        )
      }
      .prefix(limit).map(\.stream)
  }

  public func requests(
    inStates states: [String], after key: RefundRequestKey?, limit: Int, countTotal: Bool
  ) async throws(EventStoreError) -> ListRead<RefundRequestKey> {
    let listed = Self.newestFirst(
      requests().filter { states.isEmpty || states.contains($0.request.phase.rawValue) }
    ).map {
      RefundRequestKey(
        requestedAt: $0.request.requested.requestedAt.milliseconds, streamId: $0.stream)
    }
    let after = key.map { key in listed.filter { $0.isAfter(key) } } ?? listed
    return ListRead(rows: Array(after.prefix(limit)), total: countTotal ? listed.count : nil)
  }

  public func requests(withId id: String) async throws(EventStoreError) -> [String] {
    Array(
      Self.newestFirst(
        requests().filter {
          $0.request.requested.requestId.lowercased() == id.lowercased()
            || $0.request.requested.transactionId == id
        }
      ).prefix(50).map(\.stream))
  }

  public func requestCounts() async throws(EventStoreError) -> [RefundRequestCount] {
    let requests = requests()
    var counts: [RefundRequestCount] = []
    for request in requests {
      let requested = request.request.requested
      let chain =
        (try? Self.ledgerEventsOfStream(
          "sub:\(requested.environment):\(requested.originalTransactionId)", in: self)) ?? []
      let decision = RefundDecision.find(for: requested, in: chain)?.notificationType
      let key = RefundRequestCount(
        state: request.request.phase.rawValue, late: request.request.answeredLate,
        decision: decision, count: 0)
      if let index = counts.firstIndex(where: {
        ($0.state, $0.late, $0.decision) == (key.state, key.late, key.decision)
      }) {
        counts[index].count += 1
      } else {
        var first = key
        first.count = 1
        counts.append(first)
      }
    }
    return counts
  }

  /// Every request, folded from its stream.
  private func requests() -> [Request] {
    state.withLock { state in
      state.eventsOfStream.keys.sorted().compactMap { stream -> Request? in
        let recorded = Self.recorded(of: [stream], in: state).filter { $0.erasedBy == nil }
        guard let first = recorded.first, ConsumptionEvent.eventTypes.contains(first.eventType)
        else { return nil }
        let events = recorded.compactMap {
          try? EventCodec.refundRequestEvent(eventType: $0.eventType, payload: $0.payload)
        }
        return ConsumptionRequest.fold(events).map { Request(stream: stream, request: $0) }
      }
    }
  }

  private static func newestFirst(_ requests: [Request]) -> [Request] {
    requests.sorted {
      ($1.request.requested.requestedAt.milliseconds, $0.stream)
        < ($0.request.requested.requestedAt.milliseconds, $1.stream)
    }
  }

  /// A stream's ledger events, decoded.
  static func ledgerEventsOfStream(_ stream: String, in storage: InMemoryLedgerStorage) throws
    -> [LedgerEvent]
  {
    try storage.state.withLock { state in
      try Self.recorded(of: [stream], in: state)
        .filter { $0.erasedBy == nil && EventCodec.holdsLedgerEvent($0.eventType) }.map(
          EventCodec.event)
    }
  }
}
