import AppStoreVerification
import Foundation
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres

/// Refund requests in the log: opened with Apple's CONSUMPTION_REQUEST in the same
/// transaction that stores the notification, decided one command at a time with the stream's
/// version expected (so two workers never both claim a request), read back for people.
extension Ledger {
  static func consumptionStream(environment: String, requestId: String) -> String {
    "consumption:\(environment):\(requestId.lowercased())"
  }

  /// The event that opens a refund request, for a verified CONSUMPTION_REQUEST about a
  /// purchase; nil for any other notification.
  static func consumptionOpening(_ verified: VerifiedNotification) -> BatchAppend? {
    let payload = verified.payload
    guard payload.notificationType == .consumptionRequest,
      let uuid = payload.notificationUUID, let signed = payload.signedDate,
      let transaction = verified.transaction?.payload, let id = transaction.transactionId
    else { return nil }
    let environment = payload.environment?.rawValue ?? "unknown"
    let requested = ConsumptionEvent.Requested(
      requestId: uuid.lowercased(), environment: environment, transactionId: id,
      originalTransactionId: transaction.originalTransactionId ?? id,
      productId: transaction.productId, productType: transaction.type,
      appAccountToken: transaction.appAccountToken, reason: payload.data?.consumptionRequestReason,
      requestedAt: signed)
    let stream = consumptionStream(environment: environment, requestId: uuid)
    return BatchAppend(
      event: consumptionEvent(.requested(requested), key: "\(stream):requested", source: "webhook"),
      streamId: stream)
  }

  /// The opening of a refund request, joined to the accounts that hold its purchase (those the
  /// notification names and those its stream already belongs to), so their change feeds tell
  /// of the request and its answer.
  func consumptionOpening(
    _ verified: VerifiedNotification, in stream: String, for tokens: [String]
  ) async throws(LedgerError) -> BatchAppend? {
    guard var opening = Self.consumptionOpening(verified) else { return nil }
    let (client, logger) = (storage.client, storage.logger)
    let holders = try await storage.run {
      try await AccountViews.accounts(ofStreams: [stream], on: client, logger: logger)
    }
    let keys = Set(tokens.filter { !$0.isEmpty }.map(AppAccountToken.normalized) + holders)
    opening.index = StreamIndex(keys: keys.sorted(), streams: [opening.streamId])
    return opening
  }

  /// The streams of the refund requests about the chain's purchases: a link joins them too.
  func consumptionStreams(ofChain originalTransactionId: String) async throws(LedgerError)
    -> [String]
  {
    let (client, logger) = (storage.client, storage.logger)
    return try await storage.run {
      try await ConsumptionRequestIndex.streams(
        ofChain: originalTransactionId, on: client, logger: logger)
    }
  }

  static func consumptionEvent(_ event: ConsumptionEvent, key: String, source: String) -> NewEvent {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let environment: String? =
      if case .requested(let requested) = event { requested.environment } else { nil }
    // Requests hold identifiers and Apple's enumerations only: encoding cannot fail.
    return NewEvent(
      eventType: event.eventType, idempotencyKey: key,
      payload: Array(try! encoder.encode(event)), environment: environment,
      metadata: Array(try! JSONEncoder().encode(["source": source])))
  }

  // MARK: Reading

  /// Requests in `states` (every one when empty), newest first, with Apple's decisions.
  public func consumptionRequests(states: [ConsumptionRequest.Phase] = [], limit: Int = 100)
    async throws(LedgerError) -> [ConsumptionRequestReport]
  {
    let (client, logger) = (storage.client, storage.logger)
    let streams = try await storage.run {
      try await ConsumptionRequestIndex.list(
        states: states.map(\.rawValue), limit: min(max(limit, 1), 1000), on: client,
        logger: logger)
    }
    var reports: [ConsumptionRequestReport] = []
    for stream in streams {
      reports.append(try await consumptionReport(streamId: stream, withEvents: false))
    }
    return reports
  }

  /// The request whose id (the notification's UUID) or transaction id is `id`; the newest
  /// when a transaction has several.
  public func consumptionRequest(_ id: String) async throws(LedgerError)
    -> ConsumptionRequestReport
  {
    let stream = try await consumptionStreamId(id)
    return try await consumptionReport(streamId: stream, withEvents: true)
  }

  func consumptionStreamId(_ id: String) async throws(LedgerError) -> String {
    guard !id.isEmpty, id.count <= 128 else {
      throw LedgerError(.invalidRequest, "a request id is a notification UUID or a transaction id")
    }
    let (client, logger) = (storage.client, storage.logger)
    let streams = try await storage.run {
      try await ConsumptionRequestIndex.find(id, on: client, logger: logger)
    }
    guard let stream = streams.first else {
      throw LedgerError(
        .notFound,
        "no refund request has that id; `storeledger consumption list` shows the known ones")
    }
    return stream
  }

  func consumptionReport(streamId: String, withEvents: Bool) async throws(LedgerError)
    -> ConsumptionRequestReport
  {
    let (request, recorded) = try await loadConsumptionRequest(streamId)
    let chain = try await chainEvents(
      request.requested.originalTransactionId, in: request.requested.environment)
    var report = ConsumptionRequestReport(
      request, decision: RefundDecision.find(for: request.requested, in: chain))
    if withEvents {
      report.events = recorded.map { row in
        ConsumptionRequestReport.Line(
          version: row.streamVersion, eventType: row.eventType,
          recordedAt: Timestamp(row.recordedAt),
          summary: (try? JSONDecoder().decode(ConsumptionEvent.self, from: Data(row.payload)))
            .map(Self.summary) ?? "")
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
  func loadConsumptionRequest(_ streamId: String) async throws(LedgerError) -> (
    ConsumptionRequest, [RecordedEvent]
  ) {
    let store = storage.store
    let recorded = try await storage.run { try await store.readStreams([streamId]) }
    let events: [ConsumptionEvent]
    do {
      events = try recorded.map {
        try JSONDecoder().decode(ConsumptionEvent.self, from: Data($0.payload))
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
    let store = storage.store
    let stream = "sub:\(environment):\(originalTransactionId)"
    do {
      let rows = try await storage.bounded { try await store.readStreams([stream]) }
      return try rows.filter { EventCodec.holdsLedgerEvent($0.eventType) }.map(EventCodec.event)
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// What the ledger knows of the request's purchase at `time`: the account's whole state
  /// when an account holds the purchase (its debits decide how much was spent), else the
  /// chain's alone.
  public func consumptionFacts(for requested: ConsumptionEvent.Requested, at time: Timestamp)
    async throws(LedgerError) -> ConsumptionFacts?
  {
    let chain = LedgerView(
      LedgerState.fold(
        try await chainEvents(requested.originalTransactionId, in: requested.environment)),
      catalog: configuration.catalog,
      options: configuration.options)
    let records = chain.state.transactions.values.filter {
      $0.facts.originalTransactionId == requested.originalTransactionId
    }
    guard let token = chain.accountToken(ofChain: requested.originalTransactionId, records: records)
    else { return chain.consumptionFacts(of: requested.transactionId, at: time) }
    return try await view(for: token).consumptionFacts(of: requested.transactionId, at: time)
  }

  /// Counts over every request.
  public func consumptionMetrics() async throws(LedgerError) -> ConsumptionMetrics {
    let (client, logger) = (storage.client, storage.logger)
    let counts = try await storage.run {
      try await ConsumptionRequestIndex.counts(on: client, logger: logger)
    }
    var metrics = ConsumptionMetrics()
    for (state, late, decision, count) in counts {
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
  func decideConsumption(
    _ command: ConsumptionCommand, streamId: String, now: Timestamp, source: String,
    known: ConsumptionRequest? = nil
  ) async throws(LedgerError) -> ConsumptionRequest {
    var request: ConsumptionRequest
    if let known {
      request = known
    } else {
      (request, _) = try await loadConsumptionRequest(streamId)
    }
    let events: [ConsumptionEvent]
    switch request.decide(command, now: now) {
    case .success(let decided): events = decided
    case .failure(let rejection): throw LedgerError(.conflict, rejection.message)
    }
    let records = events.map {
      Self.consumptionEvent(
        $0, key: "\(streamId):\(UUID().uuidString.lowercased())", source: source)
    }
    let (store, version) = (storage.store, request.version)
    do {
      _ = try await storage.bounded {
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
