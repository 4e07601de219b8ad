import AppStoreServerAPI
import Foundation
import Logging
import StoreLedgerCore

/// Answers Apple's refund requests from the ledger: finds the open ones that are due, asks the
/// policy what to answer from what the log knows of the purchase, claims the request (an
/// event appended with the stream's version expected: of several workers on one database only
/// one wins), sends Send Consumption Information, and records Apple's acceptance or the
/// failure and when to try again, until the deadline.
///
/// A worker that stops between sending and recording leaves a claim; when its lease has run
/// out another worker takes the request over and sends the answer that claim recorded, so
/// Apple at worst receives the same body twice (a PUT: the second changes nothing).
public struct ConsumptionWorker: Sendable {
  /// The ledger's refund requests, which the worker reads and decides.
  let requests: ConsumptionRequests
  public let client: AppStoreServerAPIClient
  public let configuration: ConsumptionWorkerConfiguration
  let logger: Logger

  /// What one pass did.
  public struct Pass: Sendable, Hashable {
    public var answered = 0
    public var retrying = 0
    public var closed = 0
    /// Requests another worker decided about first.
    public var lost = 0
    public var errors = 0

    public var acted: Int { answered + retrying + closed }
  }

  /// Passes until cancelled, pausing `pollInterval` after one that found nothing to do.
  public func run() async throws {
    while !Task.isCancelled {
      let pass = await runOnce()
      if pass.acted + pass.lost == 0 { try await Task.sleep(for: configuration.pollInterval) }
    }
  }

  /// Every request due now, once.
  public func runOnce() async -> Pass {
    var pass = Pass()
    let streams: [String]
    do {
      let (index, now) = (
        requests.refundRequests, Timestamp(configuration.now()).milliseconds
      )
      let limit = configuration.batchSize
      streams = try await requests.calls.run {
        try await index.dueRequests(now: now, limit: limit)
      }
    } catch {
      logger.warning("refund requests could not be read", metadata: ["code": "\(error.code)"])
      pass.errors += 1
      return pass
    }
    for stream in streams { await process(stream, into: &pass) }
    return pass
  }

  private func process(_ streamId: String, into pass: inout Pass) async {
    do {
      let now = Timestamp(configuration.now())
      let (request, _) = try await requests.load(streamId)
      guard request.isDue(at: now) else { return }
      let decision = try await policyDecision(request, at: now)
      guard let answer = decision.answer else {
        try await requests.decide(
          .skip(reason: decision.skipReason ?? "nothing to send"), streamId: streamId, now: now,
          source: "policy", known: request)
        pass.closed += 1
        return
      }
      let claimed = try await requests.decide(
        .claim(
          answer: answer, reasons: decision.reasons, source: "policy",
          worker: configuration.workerId, lease: Self.milliseconds(configuration.lease)),
        streamId: streamId, now: now, source: "policy", known: request)
      count(try await send(claimed, streamId: streamId), into: &pass)
    } catch  where error.code == .conflict {
      pass.lost += 1
    } catch {
      pass.errors += 1
      logger.warning(
        "a refund request could not be processed", metadata: ["code": "\(error.code)"])
    }
  }

  private func count(_ request: ConsumptionRequest, into pass: inout Pass) {
    switch request.phase {
    case .answered: pass.answered += 1
    case .pending: pass.retrying += 1
    default: pass.closed += 1
    }
  }

  /// Sends the claimed answer and records what Apple said; the request after it.
  func send(_ request: ConsumptionRequest, streamId: String) async throws(LedgerError)
    -> ConsumptionRequest
  {
    guard request.phase == .sending, let answer = request.answer else { return request }
    let attempt = request.attempts
    let requested = request.requested
    do {
      try await client.sendConsumptionInformation(
        requested.transactionId, answer, productType: requested.productType, retrying: false)
    } catch {
      let failure = Self.failure(error)
      let now = Timestamp(configuration.now())
      let retryAt = failure.retryable ? nextAttempt(after: attempt, failure.wait, now: now) : nil
      logger.info(
        "a refund request's answer was not accepted",
        metadata: ["code": "\(failure.code)", "attempt": "\(attempt)"])
      return try await requests.decide(
        .recordFailure(
          attempt: attempt, code: failure.code, httpStatus: failure.httpStatus,
          apiErrorCode: failure.apiErrorCode, retryAt: retryAt), streamId: streamId, now: now,
        source: request.source ?? "policy", known: request)
    }
    do {
      try await configuration.afterSending?(requested.requestId)
    } catch {
      throw LedgerError(.databaseUnavailable, "stopped after sending, before recording")
    }
    return try await requests.decide(
      .recordAccepted(attempt: attempt), streamId: streamId,
      now: Timestamp(configuration.now()), source: request.source ?? "policy", known: request)
  }

  /// The policy's answer from what the ledger knows of the purchase at `time`.
  func policyDecision(
    _ request: ConsumptionRequest, at time: Timestamp, policy: ConsumptionPolicy? = nil
  ) async throws(LedgerError) -> ConsumptionPolicy.Decision {
    try await requests.decision(request, policy: policy ?? configuration.policy, at: time)
  }

  func nextAttempt(after attempt: Int, _ asked: Duration?, now: Timestamp) -> Timestamp {
    let doubled = configuration.initialBackoff * (1 << min(attempt - 1, 20))
    let backoff = min(doubled, configuration.maximumBackoff) * Double.random(in: 1..<1.5)
    let wait = max(backoff, asked ?? .zero)
    return Timestamp(milliseconds: now.milliseconds + Self.milliseconds(wait))
  }

  static func milliseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    return seconds * 1000 + attoseconds / 1_000_000_000_000_000
  }

  struct Failure {
    var code: String
    var httpStatus: Int?
    var apiErrorCode: Int64?
    var retryable: Bool
    var wait: Duration?
  }

  static func failure(_ error: any Error) -> Failure {
    guard let error = error as? AppStoreAPIError else {
      return Failure(code: "transport", retryable: true)
    }
    return Failure(
      code: error.code.rawValue, httpStatus: error.httpStatus,
      apiErrorCode: error.apiErrorCode.map { Int64($0.rawValue) }, retryable: error.isRetryable,
      wait: error.retryAfter)
  }
}
