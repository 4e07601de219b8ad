import StoreLedgerCore

/// A refund request as operators see it: Apple's request, what StoreLedger answered and why,
/// and what Apple decided after.
public struct ConsumptionRequestReport: Sendable, Hashable, Codable {
  public var requestId: String
  public var environment: String
  public var transactionId: String
  public var originalTransactionId: String
  public var productId: String?
  public var productType: ProductType?
  public var reason: ConsumptionRequestReason?
  public var state: ConsumptionRequest.Phase
  public var requestedAt: Timestamp
  public var deadline: Timestamp
  public var attempts: Int
  /// What was (or is being) sent.
  public var answer: ConsumptionInformation?
  /// Why the answer says what it says.
  public var reasons: [String]
  /// `policy` or `operator`.
  public var answeredBy: String?
  public var answeredAt: Timestamp?
  public var late: Bool
  /// The last failure or why the request closed without an answer.
  public var problem: String?
  public var appleDecision: RefundDecision?
  /// The request's events, oldest first (only when one request is asked for).
  public var events: [Line]?

  /// One event of the request's stream.
  public struct Line: Sendable, Hashable, Codable {
    public var version: Int64
    public var eventType: String
    public var recordedAt: Timestamp
    public var summary: String
  }

  init(_ request: ConsumptionRequest, decision: RefundDecision?) {
    let requested = request.requested
    requestId = requested.requestId
    environment = requested.environment
    transactionId = requested.transactionId
    originalTransactionId = requested.originalTransactionId
    productId = requested.productId
    productType = requested.productType
    reason = requested.reason
    state = request.phase
    requestedAt = requested.requestedAt
    deadline = requested.deadline
    attempts = request.attempts
    answer = request.answer
    reasons = request.reasons
    answeredBy = request.source
    answeredAt = request.answeredAt
    late = request.answeredLate
    problem = request.lastProblem
    appleDecision = decision
  }
}

/// Counts over every refund request, for operators and `/metrics`.
public struct ConsumptionMetrics: Sendable, Hashable, Codable {
  /// Open: waiting for an answer or being answered.
  public var pending = 0
  public var answered = 0
  public var answeredInTime = 0
  /// Accepted by Apple after the deadline.
  public var late = 0
  public var expired = 0
  public var failed = 0
  public var skipped = 0
  /// Apple's decisions after an accepted answer.
  public var refundedAfterAnswer = 0
  public var declinedAfterAnswer = 0

  public var received: Int { pending + answered + expired + failed + skipped }
}
