import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StoreLedgerCore
import StoreLedgerPostgres

/// Delivers the change feed to the configured webhook endpoints: signed POSTs, in order per
/// account, at least once, with retries (exponential backoff) until ``ChangeDeliveryConfiguration/retryFor``,
/// then dead-lettered. Each endpoint has its own task: a receiver that fails or hangs delays
/// only its own deliveries, never another endpoint's or the ledger.
///
/// Several servers may deliver side by side: deliveries are claimed with a lease (`FOR UPDATE
/// SKIP LOCKED`), so a change goes out once in the normal case. A server stopped after a
/// receiver accepted a change and before recording it sends that change again once the lease
/// ends; receivers dedupe by the change's `id`.
public struct ChangeDeliverer: Sendable {
  /// The change feed the deliveries carry, and the queue of deliveries.
  let feed: any ChangeFeed
  let deliveries: any ChangeDeliveryQueue
  /// Signalled when this process appends changes, so a waiting endpoint goes on at once.
  let changesAppended: WakeUpSignal
  /// The app changes are of, on a server of several apps (nil otherwise).
  let app: String?
  let configuration: ChangeDeliveryConfiguration
  let http: HTTPClient
  let logger: Logger

  /// Runs until its task is cancelled.
  public func run() async {
    await withTaskGroup(of: Void.self) { group in
      for endpoint in configuration.endpoints {
        group.addTask { await self.run(endpoint) }
      }
    }
  }

  /// Registers every endpoint (a new one starts at the feed's head).
  public func register() async throws(LedgerError) {
    for endpoint in configuration.endpoints {
      do {
        try await deliveries.register(endpoint.key)
      } catch {
        throw LedgerStorage.mapped(error)
      }
    }
  }

  private func run(_ endpoint: ChangeEndpoint) async {
    var registered = false
    var pruned = ContinuousClock.now - .seconds(3600)
    while !Task.isCancelled {
      let generation = changesAppended.generation
      do {
        if !registered {
          try await register()
          registered = true
        }
        if ContinuousClock.now - pruned >= .seconds(3600) {
          try await prune(endpoint)
          pruned = .now
        }
        if try await deliverRound(to: endpoint) > 0 { continue }
      } catch {
        if Task.isCancelled { return }
        logger.warning(
          "change delivery failed; retrying",
          metadata: ["endpoint": "\(endpoint.key)", "error": "\(LedgerStorage.mapped(error).code)"])
        try? await Task.sleep(for: .seconds(1))
        continue
      }
      _ = await changesAppended.wait(
        after: generation, timeout: configuration.pollInterval)
    }
  }

  private func prune(_ endpoint: ChangeEndpoint) async throws {
    try await deliveries.prune(endpoint.key, deliveredBefore: configuration.keepDelivered)
  }

  /// Queues what is new, claims what is due, posts it and records the outcomes; returns how
  /// many deliveries it attempted.
  func deliverRound(to endpoint: ChangeEndpoint) async throws -> Int {
    let queue = deliveries
    try await queue.enqueue(endpoint.key, limit: 1000)
    let claims = try await queue.claim(
      endpoint.key, limit: configuration.batchSize, lease: configuration.lease)
    guard !claims.isEmpty else { return 0 }
    let records = try await feed.changes(at: claims.map(\.position))
    let byPosition = Dictionary(
      uniqueKeysWithValues: records.map { ($0.position, $0.of(app: app)) })
    let outcomes = await post(claims, byPosition, to: endpoint)
    try await queue.record(outcomes, endpoint: endpoint.key)
    return claims.count
  }

  private func post(
    _ claims: [ChangeDeliveryClaim], _ records: [Int64: ChangeRecord],
    to endpoint: ChangeEndpoint
  ) async -> [ChangeDeliveryOutcome] {
    await withTaskGroup(of: ChangeDeliveryOutcome.self) { group in
      var outcomes: [ChangeDeliveryOutcome] = []
      for (index, claim) in claims.enumerated() {
        if index >= configuration.concurrency, let outcome = await group.next() {
          outcomes.append(outcome)
        }
        let record = records[claim.position]
        group.addTask { await self.attempt(claim, record, to: endpoint) }
      }
      for await outcome in group { outcomes.append(outcome) }
      return outcomes
    }
  }

  /// One POST and what it means for the delivery.
  private func attempt(
    _ claim: ChangeDeliveryClaim, _ record: ChangeRecord?, to endpoint: ChangeEndpoint
  ) async -> ChangeDeliveryOutcome {
    guard let record else {
      return .init(
        position: claim.position, state: .dead, status: nil, error: "change not found",
        retryAt: nil)
    }
    let body = record.jsonBytes
    var request = HTTPClientRequest(url: endpoint.url.absoluteString)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    request.headers.add(name: "User-Agent", value: "StoreLedger")
    request.headers.add(name: "StoreLedger-Change-Id", value: record.id.uuidString.lowercased())
    request.headers.add(
      name: ChangeSignature.header,
      value: ChangeSignature.sign(body, secret: endpoint.secret, at: Date()))
    request.body = .bytes(ByteBuffer(bytes: body))
    var status: Int?
    var failure: String?
    do {
      let response = try await http.execute(
        request,
        timeout: .milliseconds(Int64(configuration.timeout.timeInterval * 1000)))
      status = Int(response.status.code)
      _ = try? await response.body.collect(upTo: 64 * 1024)
      if (200..<300).contains(response.status.code) {
        return .init(
          position: claim.position, state: .delivered, status: status, error: nil, retryAt: nil)
      }
      failure = "HTTP \(response.status.code)"
    } catch {
      failure = error is HTTPClientError ? "\(error)" : "request failed"
    }
    return retryOrBury(claim, status: status, failure: failure)
  }

  private func retryOrBury(_ claim: ChangeDeliveryClaim, status: Int?, failure: String?)
    -> ChangeDeliveryOutcome
  {
    let next = configuration.schedule.afterFailure(
      attempt: claim.attempt, firstAttemptAt: claim.firstAttemptAt)
    return .init(
      position: claim.position, state: next.state, status: status,
      error: failure.map { String($0.prefix(200)) }, retryAt: next.retryAt)
  }
}
