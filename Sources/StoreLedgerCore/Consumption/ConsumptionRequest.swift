/// A refund request folded from its stream, and the decisions about it (the Decider shape:
/// ``fold(_:)`` is `evolve` over the events, ``decide(_:now:)`` turns a command into the
/// events to append). Pure: the caller passes the time.
public struct ConsumptionRequest: Hashable, Sendable {
  public enum Phase: String, Hashable, Sendable, Codable, CaseIterable {
    /// Waiting for an answer (first, or again after a failed attempt).
    case pending
    /// Claimed: an answer is on its way to Apple.
    case sending
    case answered
    case expired
    case failed
    case skipped

    public var isOpen: Bool { self == .pending || self == .sending }
  }

  public private(set) var requested: ConsumptionEvent.Requested
  public private(set) var phase: Phase = .pending
  /// Attempts made (claims written).
  public private(set) var attempts = 0
  /// The answer of the latest claim: what was (or is being) sent.
  public private(set) var answer: ConsumptionInformation?
  public private(set) var reasons: [String] = []
  public private(set) var source: String?
  public private(set) var leaseUntil: Timestamp?
  public private(set) var dueAt: Timestamp?
  public private(set) var answeredAt: Timestamp?
  public private(set) var answeredLate = false
  /// The last failed attempt or the closing, for people.
  public private(set) var lastProblem: String?
  public private(set) var closedAt: Timestamp?
  /// Events folded: the stream's version.
  public private(set) var version: Int64 = 0

  public var deadline: Timestamp { requested.deadline }

  init(_ requested: ConsumptionEvent.Requested) {
    self.requested = requested
    self.dueAt = requested.requestedAt
  }

  /// The request the stream's events describe, oldest first; nil when the first is not the
  /// opening `requested`.
  public static func fold(_ events: [ConsumptionEvent]) -> ConsumptionRequest? {
    guard case .requested(let requested) = events.first else { return nil }
    var request = ConsumptionRequest(requested)
    for event in events { request.evolve(event) }
    return request
  }

  public mutating func evolve(_ event: ConsumptionEvent) {
    version += 1
    phase = event.state
    dueAt = event.dueAt
    switch event {
    case .requested: break
    case .sending(let sending):
      attempts = max(attempts, sending.attempt)
      answer = sending.answer
      reasons = sending.reasons
      source = sending.source
      leaseUntil = sending.leaseUntil
    case .answered(let answered):
      answeredAt = answered.at
      answeredLate = answered.late
    case .attemptFailed(let failed):
      lastProblem = Self.describe(failed.code, failed.httpStatus, failed.apiErrorCode)
    case .closed(let closed):
      closedAt = closed.at
      lastProblem = closed.reason
    }
  }

  static func describe(_ code: String, _ status: Int?, _ apiErrorCode: Int64?) -> String {
    var text = code
    if let status { text += " (HTTP \(status)" + (apiErrorCode.map { ", Apple \($0))" } ?? ")") }
    return text
  }
}

/// What may be asked of a refund request.
public enum ConsumptionCommand: Hashable, Sendable {
  /// Claim the request to send `answer` (a worker: only when it is due; an operator: now).
  /// A claim taken over from a crashed or stalled one sends the answer already recorded.
  case claim(
    answer: ConsumptionInformation, reasons: [String], source: String, worker: String,
    lease: Int64)
  /// Apple accepted the answer of `attempt`.
  case recordAccepted(attempt: Int)
  /// The call of `attempt` failed; `retryAt` when another attempt may succeed.
  case recordFailure(
    attempt: Int, code: String, httpStatus: Int?, apiErrorCode: Int64?, retryAt: Timestamp?)
  /// Nothing may be sent: close without an answer.
  case skip(reason: String)
}

/// Why a command changes nothing. `code` is stable.
public struct ConsumptionRejection: Error, Hashable, Sendable, CustomStringConvertible {
  public enum Code: String, Hashable, Sendable {
    /// The request is answered, expired, failed or skipped.
    case closed = "request_closed"
    /// Another claim holds the request (its lease has not run out).
    case claimed = "request_claimed"
    /// A worker's claim before the request is due.
    case notDue = "request_not_due"
    /// A result for an attempt that is not the one in flight.
    case staleAttempt = "stale_attempt"
  }

  public var code: Code
  public var message: String
  public var description: String { "\(code.rawValue): \(message)" }
}

extension ConsumptionRequest {
  /// The events `command` adds at `now`, or why it adds none. Past the deadline an open
  /// request closes as expired whatever the command (Apple ignores late answers).
  public func decide(_ command: ConsumptionCommand, now: Timestamp) -> Result<
    [ConsumptionEvent], ConsumptionRejection
  > {
    guard phase.isOpen else {
      return .failure(.init(code: .closed, message: "the request is \(phase.rawValue)"))
    }
    switch command {
    case .claim(let answer, let reasons, let source, let worker, let lease):
      if let expired = expiry(now) { return .success([expired]) }
      return claim(answer, reasons, source, worker, lease: lease, now: now)
    case .recordAccepted(let attempt):
      guard phase == .sending, attempt == attempts else { return stale(attempt) }
      return .success([
        .answered(.init(attempt: attempt, at: now, late: now.milliseconds > deadline.milliseconds))
      ])
    case .recordFailure(let attempt, let code, let status, let apiCode, let retryAt):
      guard phase == .sending, attempt == attempts else { return stale(attempt) }
      guard let retryAt, retryAt.milliseconds < deadline.milliseconds else {
        let reason =
          retryAt == nil
          ? "Apple refused the answer: \(Self.describe(code, status, apiCode))"
          : "retries ran into the deadline: \(Self.describe(code, status, apiCode))"
        return .success([
          .closed(
            .init(
              outcome: .failed, reason: reason, at: now, code: code, httpStatus: status,
              apiErrorCode: apiCode))
        ])
      }
      return .success([
        .attemptFailed(
          .init(
            attempt: attempt, at: now, code: code, httpStatus: status, apiErrorCode: apiCode,
            retryAt: retryAt))
      ])
    case .skip(let reason):
      if let expired = expiry(now) { return .success([expired]) }
      guard phase == .pending else {
        return .failure(.init(code: .claimed, message: "an answer is on its way"))
      }
      return .success([.closed(.init(outcome: .skipped, reason: reason, at: now))])
    }
  }

  /// Whether a worker should act on the request at `now`.
  public func isDue(at now: Timestamp) -> Bool {
    phase.isOpen && (dueAt?.milliseconds ?? .min) <= now.milliseconds
  }

  private func expiry(_ now: Timestamp) -> ConsumptionEvent? {
    guard now.milliseconds > deadline.milliseconds else { return nil }
    return .closed(
      .init(
        outcome: .expired,
        reason: attempts == 0
          ? "the deadline passed before an answer was sent"
          : "the deadline passed before Apple accepted an answer", at: now))
  }

  private func claim(
    _ answer: ConsumptionInformation, _ reasons: [String], _ source: String, _ worker: String,
    lease: Int64, now: Timestamp
  ) -> Result<[ConsumptionEvent], ConsumptionRejection> {
    let operatorClaim = source == "operator"
    if phase == .sending, let leaseUntil, leaseUntil.milliseconds > now.milliseconds {
      return .failure(.init(code: .claimed, message: "another claim holds the request"))
    }
    if !operatorClaim, !isDue(at: now) {
      return .failure(.init(code: .notDue, message: "the request is not due yet"))
    }
    // A claim taken over from one that never reported sends what that one may have sent:
    // Apple then receives the same body twice, which changes nothing there.
    let takeover = phase == .sending ? self.answer : nil
    let sending = ConsumptionEvent.Sending(
      attempt: attempts + 1, answer: takeover ?? answer,
      reasons: takeover == nil ? reasons : self.reasons,
      source: takeover == nil ? source : self.source ?? source,
      worker: worker, at: now,
      leaseUntil: Timestamp(milliseconds: min(now.milliseconds + lease, deadline.milliseconds + 1)))
    return .success([.sending(sending)])
  }

  private func stale(_ attempt: Int) -> Result<[ConsumptionEvent], ConsumptionRejection> {
    .failure(
      .init(
        code: .staleAttempt,
        message: "attempt \(attempt) is not the one in flight (\(phase.rawValue), \(attempts))"))
  }
}
