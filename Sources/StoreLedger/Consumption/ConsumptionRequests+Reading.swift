import AppStoreVerification
import Foundation
import StoreLedgerCore

extension ConsumptionRequests {
  // MARK: Reading

  /// Requests in `states` (every one when empty), newest first, with Apple's decisions.
  public func list(states: [ConsumptionRequest.Phase] = [], limit: Int = 100)
    async throws(LedgerError) -> [ConsumptionRequestReport]
  {
    try await page(states: states, limit: min(max(limit, 1), Self.pageLimit)).rows
  }

  /// The most rows a page holds.
  public static let pageLimit = 1000

  /// A page of the requests in `states` (every one when empty), newest first, with how many
  /// the whole list holds (counted on the first page); `cursor` is the `nextCursor` of the
  /// page before. Every request is on exactly one page, however many there are.
  public func page(
    states: [ConsumptionRequest.Phase] = [], limit: Int = 50, cursor: String? = nil
  ) async throws(LedgerError) -> ListPage<ConsumptionRequestReport> {
    guard (1...Self.pageLimit).contains(limit) else {
      throw LedgerError(.invalidRequest, "a page holds 1 to \(Self.pageLimit) rows (`limit`)")
    }
    let index = refundRequests
    let names = states.map(\.rawValue).sorted()
    let keys = try await ListPage<RefundRequestKey>.read(
      list: "refund-requests", filter: names.joined(separator: ","), limit: limit,
      cursor: cursor,
      key: { parts in
        Int64(parts[0]).map { RefundRequestKey(requestedAt: $0, streamId: parts[1]) }
      },
      read: { (key, count) throws(EventStoreError) in
        try await index.requests(
          inStates: names, after: key, limit: limit + 1, countTotal: count)
      },
      keyOf: { [String($0.requestedAt), $0.streamId] }, mapped: LedgerStorage.mapped)
    let reports = try await reports(of: keys.rows.map(\.streamId))
    return ListPage(rows: reports, total: keys.total, nextCursor: keys.nextCursor)
  }

  /// Reports read at once on a page: each reads its stream and its subscription's chain, so a
  /// page of 50 read one by one waits for over a hundred round trips in a row.
  static let pageConcurrency = 8

  /// The reports of `streamIds`, in their order, at most ``pageConcurrency`` read at a time.
  func reports(of streamIds: [String]) async throws(LedgerError) -> [ConsumptionRequestReport] {
    typealias Read = Result<ConsumptionRequestReport, LedgerError>
    let reads = await withTaskGroup(of: (Int, Read).self) { group in
      var reads = [Read?](repeating: nil, count: streamIds.count)
      for (index, streamId) in streamIds.enumerated() {
        if index >= Self.pageConcurrency, let (done, read) = await group.next() {
          reads[done] = read
        }
        group.addTask {
          do throws(LedgerError) {
            return (index, .success(try await report(streamId: streamId, withEvents: false)))
          } catch {
            return (index, .failure(error))
          }
        }
      }
      for await (done, read) in group { reads[done] = read }
      return reads
    }
    var reports: [ConsumptionRequestReport] = []
    for read in reads {
      if let read { reports.append(try read.get()) }
    }
    return reports
  }

  /// The request whose id (the notification's UUID) or transaction id is `id`; the newest
  /// when a transaction has several.
  public func request(_ id: String) async throws(LedgerError)
    -> ConsumptionRequestReport
  {
    let stream = try await streamId(id)
    return try await report(streamId: stream, withEvents: true)
  }

  func streamId(_ id: String) async throws(LedgerError) -> String {
    guard !id.isEmpty, id.count <= 128 else {
      throw LedgerError(.invalidRequest, "a request id is a notification UUID or a transaction id")
    }
    let index = refundRequests
    let streams = try await calls.run { try await index.requests(withId: id) }
    guard let stream = streams.first else {
      throw LedgerError(
        .notFound,
        "no refund request has that id; `storeledger consumption list` shows the known ones")
    }
    return stream
  }

  func report(streamId: String, withEvents: Bool) async throws(LedgerError)
    -> ConsumptionRequestReport
  {
    let (request, recorded) = try await load(streamId)
    let chain = try await chainEvents(
      request.requested.originalTransactionId, in: request.requested.environment)
    var report = ConsumptionRequestReport(
      request, decision: RefundDecision.find(for: request.requested, in: chain))
    if withEvents {
      report.events = recorded.map { row in
        ConsumptionRequestReport.Line(
          version: row.streamVersion, eventType: row.eventType,
          recordedAt: Timestamp(row.recordedAt),
          summary: (try? EventCodec.refundRequestEvent(
            eventType: row.eventType, payload: row.payload)).map(Self.summary) ?? "")
      }
    }
    return report
  }

  static func summary(_ event: ConsumptionEvent) -> String {
    switch event {
    case .requested(let requested):
      "Apple asked (\(requested.reason?.rawValue ?? "no reason given")); deadline "
        + requested.deadline.date.formatted(.iso8601)
    case .sending(let sending):
      "attempt \(sending.attempt) by \(sending.source): "
        + "\(sending.answer.deliveryStatus.rawValue), "
        + "preference \(sending.answer.refundPreference?.rawValue ?? "none")"
    case .answered(let answered):
      "Apple accepted attempt \(answered.attempt)" + (answered.late ? " after the deadline" : "")
    case .attemptFailed(let failed):
      "attempt \(failed.attempt) failed (\(failed.code)); next at "
        + failed.retryAt.date.formatted(.iso8601)
    case .closed(let closed): "\(closed.outcome.rawValue): \(closed.reason)"
    }
  }

  /// The request's events and their fold.
  func load(_ streamId: String) async throws(LedgerError) -> (
    ConsumptionRequest, [RecordedEvent]
  ) {
    let log = self.log
    let recorded = try await calls.run { try await log.readStreams([streamId]) }
    let events: [ConsumptionEvent]
    do {
      events = try recorded.map {
        try EventCodec.refundRequestEvent(eventType: $0.eventType, payload: $0.payload)
      }
    } catch {
      throw LedgerError(.databaseRejected, "a refund request's event does not decode")
    }
    guard let request = ConsumptionRequest.fold(events) else {
      throw LedgerError(.notFound, "no refund request is stored under that id")
    }
    return (request, recorded)
  }

  /// The purchase chain's events in one environment, decoded.
  func chainEvents(_ originalTransactionId: String, in environment: String)
    async throws(LedgerError) -> [LedgerEvent]
  {
    let log = self.log
    let stream = "sub:\(environment):\(originalTransactionId)"
    do {
      let rows = try await calls.bounded { try await log.readStreams([stream]) }
      return try rows.filter { EventCodec.holdsLedgerEvent($0.eventType) }.map(EventCodec.event)
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// What the ledger knows of the request's purchase at `time`: the account's whole state
  /// when an account holds the purchase (its debits decide how much was spent), else the
  /// chain's alone.
  public func facts(for requested: ConsumptionEvent.Requested, at time: Timestamp)
    async throws(LedgerError) -> ConsumptionFacts?
  {
    let chain = try await reader.view(
      ofStreams: ["sub:\(requested.environment):\(requested.originalTransactionId)"],
      skippingErased: false)
    let records = chain.state.transactions.values.filter {
      $0.facts.originalTransactionId == requested.originalTransactionId
    }
    guard let token = chain.accountToken(ofChain: requested.originalTransactionId, records: records)
    else { return chain.consumptionFacts(of: requested.transactionId, at: time) }
    var facts = try await reader.view(of: token).consumptionFacts(
      of: requested.transactionId, at: time)
    facts?.consent = try await consents.inForce(for: token, at: time)
    return facts
  }

  /// Counts over every request.
  public func metrics() async throws(LedgerError) -> ConsumptionMetrics {
    let index = refundRequests
    let counts = try await calls.run { try await index.requestCounts() }
    var metrics = ConsumptionMetrics()
    for (state, late, decision, count) in counts.map({ ($0.state, $0.late, $0.decision, $0.count) })
    {
      switch ConsumptionRequest.Phase(rawValue: state) {
      case .pending, .sending: metrics.pending += count
      case .answered:
        metrics.answered += count
        if late { metrics.late += count } else { metrics.answeredInTime += count }
        if decision == "REFUND" { metrics.refundedAfterAnswer += count }
        if decision == "REFUND_DECLINED" { metrics.declinedAfterAnswer += count }
      case .expired: metrics.expired += count
      case .failed: metrics.failed += count
      case .skipped: metrics.skipped += count
      case nil: continue
      }
    }
    return metrics
  }

  // MARK: Deciding

  /// Decides `command` over the request at `now` (as `known` when the caller has just read
  /// or decided it, else read now) and appends what it returns, expecting the request's
  /// version: a concurrent decision makes this one fail with `conflict`, nothing appended.
  /// Returns the request after the decision.
  @discardableResult
  func decide(
    _ command: ConsumptionCommand, streamId: String, now: Timestamp, source: String,
    known: ConsumptionRequest? = nil
  ) async throws(LedgerError) -> ConsumptionRequest {
    var request: ConsumptionRequest
    if let known {
      request = known
    } else {
      (request, _) = try await load(streamId)
    }
    let events: [ConsumptionEvent]
    switch request.decide(command, now: now) {
    case .success(let decided): events = decided
    case .failure(let rejection): throw LedgerError(.conflict, rejection.message)
    }
    let records = events.map {
      EventCodec.newEvent(
        $0, key: "\(streamId):\(UUID().uuidString.lowercased())", source: source)
    }
    let (store, version) = (log, request.version)
    do {
      _ = try await calls.bounded {
        try await store.append(records, to: streamId, expected: .exact(version))
      }
    } catch let error as EventStoreError where error.code == .wrongExpectedVersion {
      throw LedgerError(.conflict, "another worker decided about the request first")
    } catch {
      throw LedgerStorage.mapped(error)
    }
    for event in events { request.evolve(event) }
    return request
  }

}
