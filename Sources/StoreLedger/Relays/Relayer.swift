import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StoreLedgerCore
import StoreLedgerPostgres
import Synchronization

/// Sends Apple's notifications on to the relay targets (``Relays``), the signed body exactly as
/// Apple sent it: at least once, with retries (exponential backoff) until
/// ``RelayConfiguration/retryFor``, then dead-lettered. It reads notifications from the log
/// after they committed, so the webhook's answer to Apple never waits for a target. Each
/// target has its own task: one that fails or hangs delays only its own relays.
///
/// Every attempt is appended to the log (`ledger.relay_attempted.v1` in `relay:<target>`)
/// before the queue moves on, so the log holds each attempt whose answer came back. Several
/// servers may relay side by side: deliveries are claimed with a lease; a server stopped after
/// a target accepted a notification and before recording it sends it again once the lease
/// ends (receivers of Apple's notifications dedupe by `notificationUUID`, as Apple's own
/// retries require).
public struct Relayer: Sendable {
  let relays: any RelayQueue
  /// Where each attempt is recorded.
  let log: any EventLog
  let calls: StorageCalls
  let wakeUp: WakeUpSignal?
  let configuration: RelayConfiguration
  let http: HTTPClient
  let logger: Logger

  /// Runs until its task is cancelled: follows the stored targets as they are added and
  /// removed.
  public func run() async {
    let queue = relays
    let board = Board()
    await withDiscardingTaskGroup { group in
      while !Task.isCancelled {
        do {
          let targets = try await calls.run { try await queue.relayTargets() }
          board.current.withLock {
            $0 = Dictionary(uniqueKeysWithValues: targets.map { ($0.name, $0) })
          }
          for target in targets {
            let starts = board.running.withLock { $0.insert(target.name).inserted }
            guard starts else { continue }
            group.addTask {
              await self.relay(to: target, queue: queue, board: board)
              _ = board.running.withLock { $0.remove(target.name) }
            }
          }
        } catch {
          if Task.isCancelled { break }
          logger.warning(
            "reading the relay targets failed; retrying",
            metadata: ["error": "\(LedgerStorage.mapped(error).code)"])
        }
        try? await Task.sleep(for: configuration.targetsInterval)
      }
    }
  }

  /// Relays to one target until it is removed or changed (its task then ends; a changed one
  /// starts again with the new settings) or the task is cancelled.
  private func relay(to target: RelayTarget, queue: any RelayQueue, board: Board) async {
    var pruned = ContinuousClock.now - .seconds(3600)
    while !Task.isCancelled {
      guard board.current.withLock({ $0[target.name] }) == target else { return }
      let generation = wakeUp?.generation
      do {
        if ContinuousClock.now - pruned >= .seconds(3600) {
          _ = try await calls.run {
            try await queue.pruneRelays(
              to: target.name, deliveredBefore: configuration.keepDelivered)
          }
          pruned = .now
        }
        let (scanned, attempted) = try await relayRound(to: target, queue: queue)
        guard let scanned else { return }
        if scanned >= Self.scanLimit || attempted > 0 { continue }
      } catch {
        if Task.isCancelled { return }
        logger.warning(
          "relaying failed; retrying",
          metadata: [
            "relay_target": "\(target.name)", "error": "\(LedgerStorage.mapped(error).code)",
          ])
        try? await Task.sleep(for: .seconds(1))
        continue
      }
      if let wakeUp {
        _ = await wakeUp.wait(after: generation, timeout: configuration.pollInterval)
      } else {
        try? await Task.sleep(for: configuration.pollInterval)
      }
    }
  }

  static let scanLimit = 1000

  /// The targets as last read, and those with a running task.
  final class Board: Sendable {
    let current = Mutex<[String: RelayTarget]>([:])
    let running = Mutex<Set<String>>([])
  }

  /// Queues what is new, claims what is due, posts it, appends the attempts to the log and
  /// records the outcomes. Returns the events scanned (nil: the target is gone) and the
  /// attempts made.
  func relayRound(to target: RelayTarget, queue: any RelayQueue) async throws -> (Int?, Int) {
    let scanned = try await calls.run {
      try await queue.queueRelays(to: target.name, limit: Self.scanLimit)
    }
    guard let scanned else { return (nil, 0) }
    let claims = try await calls.run {
      try await queue.claimRelays(
        to: target.name, limit: configuration.batchSize, lease: configuration.lease)
    }
    guard !claims.isEmpty else { return (scanned, 0) }
    let attempts = await post(claims, to: target)
    try await recordInLog(attempts.map(\.attempt), of: target)
    try await calls.run {
      try await queue.recordRelays(attempts.map(\.outcome), to: target.name)
    }
    return (scanned, claims.count)
  }

  private func recordInLog(_ attempts: [RelayAttempt], of target: RelayTarget) async throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    var events: [NewEvent] = []
    for attempt in attempts {
      events.append(
        EventCodec.newRecord(
          Array(try encoder.encode([RelayAttempt.member: attempt])), type: RelayAttempt.eventType,
          key: attempt.idempotencyKey, source: "relays"))
    }
    let log = self.log
    let recorded = events
    _ = try await calls.run {
      try await log.append(recorded, to: target.streamId, indexing: nil)
    }
  }

  private func post(_ claims: [RelayDeliveryClaim], to target: RelayTarget) async
    -> [(attempt: RelayAttempt, outcome: RelayOutcome)]
  {
    await withTaskGroup(of: (attempt: RelayAttempt, outcome: RelayOutcome).self) { group in
      var results: [(attempt: RelayAttempt, outcome: RelayOutcome)] = []
      for (index, claim) in claims.enumerated() {
        if index >= configuration.concurrency, let result = await group.next() {
          results.append(result)
        }
        group.addTask { await self.attempt(claim, to: target) }
      }
      for await result in group { results.append(result) }
      return results
    }
  }

  /// One POST of the notification's body and what it means for the delivery.
  private func attempt(_ claim: RelayDeliveryClaim, to target: RelayTarget) async
    -> (attempt: RelayAttempt, outcome: RelayOutcome)
  {
    let sentAt = Date()
    guard let body = claim.body else {
      return result(
        claim, target, body: [], state: .dead, status: nil,
        error: "the notification was erased before it was relayed: nothing sent",
        sentAt: sentAt, retryAt: nil)
    }
    var request = HTTPClientRequest(url: target.url)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    request.headers.add(name: "User-Agent", value: "StoreLedger-Relay")
    request.body = .bytes(ByteBuffer(bytes: body))
    var status: Int?
    var failure: String
    do {
      let response = try await http.execute(
        request,
        timeout: .milliseconds(Int64(configuration.timeout.timeInterval * 1000)))
      status = Int(response.status.code)
      _ = try? await response.body.collect(upTo: 64 * 1024)
      if (200..<300).contains(response.status.code) {
        return result(
          claim, target, body: body, state: .delivered, status: status, error: nil,
          sentAt: sentAt, retryAt: nil)
      }
      failure = "HTTP \(response.status.code)"
    } catch {
      failure = error is HTTPClientError ? "\(error)" : "request failed"
    }
    let next = configuration.schedule.afterFailure(
      attempt: claim.attempt, firstAttemptAt: claim.firstAttemptAt)
    return result(
      claim, target, body: body, state: next.state == .dead ? .dead : .failed, status: status,
      error: failure, sentAt: sentAt, retryAt: next.retryAt)
  }

  private func result(
    _ claim: RelayDeliveryClaim, _ target: RelayTarget, body: [UInt8],
    state: RelayAttempt.Outcome, status: Int?, error: String?, sentAt: Date, retryAt: Date?
  ) -> (attempt: RelayAttempt, outcome: RelayOutcome) {
    let error = error.map { String($0.prefix(200)) }
    let digest = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
    let attempt = RelayAttempt(
      target: target.name, urlKey: target.urlKey, notification: claim.notificationKey,
      notificationType: claim.notificationType, environment: claim.environment,
      streamId: claim.streamId, streamVersion: claim.streamVersion, attempt: claim.attempt,
      outcome: state, status: status, error: error, sentAt: Timestamp(sentAt),
      answeredAt: Timestamp(Date()), bodySHA256: digest, bodyBytes: body.count)
    let queueState =
      switch state {
      case .delivered: DeliveryState.delivered
      case .failed: DeliveryState.pending
      case .dead: DeliveryState.dead
      }
    return (
      attempt,
      RelayOutcome(
        notificationKey: claim.notificationKey, state: queueState, status: status, error: error,
        retryAt: retryAt)
    )
  }
}
