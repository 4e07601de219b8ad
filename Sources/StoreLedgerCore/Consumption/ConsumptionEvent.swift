/// One event of a refund request's stream (`consumption:<env>:<notificationUUID>`): Apple's
/// CONSUMPTION_REQUEST opened it, StoreLedger's answers and their outcomes follow. The stored
/// payload holds the case under its name, and beside it the request's `state` and `dueAt`
/// after the event (what the request index in PostgreSQL reads, so it never interprets
/// more than that).
public enum ConsumptionEvent: Hashable, Sendable {
  case requested(Requested)
  case sending(Sending)
  case answered(Answered)
  case attemptFailed(AttemptFailed)
  case closed(Closed)

  /// Apple asked for consumption information about a purchase the customer wants refunded.
  public struct Requested: Hashable, Sendable, Codable {
    /// The notification's `notificationUUID`.
    public var requestId: String
    public var environment: String
    public var transactionId: String
    public var originalTransactionId: String
    public var productId: String?
    public var productType: ProductType?
    public var appAccountToken: String?
    public var reason: ConsumptionRequestReason?
    /// The notification's `signedDate`.
    public var requestedAt: Timestamp
    /// Twelve hours after `requestedAt`: Apple ignores answers after it.
    public var deadline: Timestamp

    public init(
      requestId: String, environment: String, transactionId: String,
      originalTransactionId: String, productId: String?, productType: ProductType?,
      appAccountToken: String?, reason: ConsumptionRequestReason?, requestedAt: Timestamp
    ) {
      self.requestId = requestId
      self.environment = environment
      self.transactionId = transactionId
      self.originalTransactionId = originalTransactionId
      self.productId = productId
      self.productType = productType
      self.appAccountToken = appAccountToken
      self.reason = reason
      self.requestedAt = requestedAt
      self.deadline = Timestamp(milliseconds: requestedAt.milliseconds + Self.window)
    }

    /// Apple's twelve hours, in milliseconds.
    public static let window: Int64 = 12 * 3_600_000
  }

  /// A worker (or an operator) claimed the request and is sending `answer`: written before
  /// the call, so a crash after it leaves a claim that another worker may take over once
  /// `leaseUntil` has passed, sending the same answer again.
  public struct Sending: Hashable, Sendable, Codable {
    public var attempt: Int
    public var answer: ConsumptionInformation
    /// Why the answer says what it says, for people.
    public var reasons: [String]
    /// `policy` or `operator`.
    public var source: String
    public var worker: String
    public var at: Timestamp
    public var leaseUntil: Timestamp
  }

  /// Apple accepted the answer (HTTP 202).
  public struct Answered: Hashable, Sendable, Codable {
    public var attempt: Int
    public var at: Timestamp
    /// Accepted after the deadline.
    public var late: Bool
  }

  /// An attempt failed in a way worth another one at `retryAt`.
  public struct AttemptFailed: Hashable, Sendable, Codable {
    public var attempt: Int
    public var at: Timestamp
    /// The client's error code (`rate_limited`, `api_error`, …).
    public var code: String
    public var httpStatus: Int?
    public var apiErrorCode: Int64?
    public var retryAt: Timestamp
  }

  /// The request is over without an answer accepted.
  public struct Closed: Hashable, Sendable, Codable {
    public enum Outcome: String, Hashable, Sendable, Codable {
      /// The deadline passed before an answer was accepted.
      case expired
      /// Apple refused the answer for good, or retries ran into the deadline.
      case failed
      /// Nothing may be sent (the app does not obtain the customer's consent).
      case skipped
    }

    public var outcome: Outcome
    public var reason: String
    public var at: Timestamp
    public var code: String?
    public var httpStatus: Int?
    public var apiErrorCode: Int64?
  }

  /// The stable, versioned `event_type` of each case.
  public var eventType: String {
    switch self {
    case .requested: EventTypes.refundRequested
    case .sending: EventTypes.refundSending
    case .answered: EventTypes.refundAnswered
    case .attemptFailed: EventTypes.refundAttemptFailed
    case .closed: EventTypes.refundClosed
    }
  }

  public static let eventTypes = EventTypes.types(of: .refundRequest)

  /// The request's state right after this event.
  public var state: ConsumptionRequest.Phase {
    switch self {
    case .requested, .attemptFailed: .pending
    case .sending: .sending
    case .answered: .answered
    case .closed(let closed):
      switch closed.outcome {
      case .expired: .expired
      case .failed: .failed
      case .skipped: .skipped
      }
    }
  }

  /// When a worker should next look at the request, after this event; nil once it is over.
  public var dueAt: Timestamp? {
    switch self {
    case .requested(let requested): requested.requestedAt
    case .sending(let sending): sending.leaseUntil
    case .attemptFailed(let failed): failed.retryAt
    case .answered, .closed: nil
    }
  }
}

extension ConsumptionEvent: Codable {
  private enum Keys: String, CodingKey, CaseIterable {
    case requested, sending, answered, attemptFailed, closed
  }
  private enum Index: String, CodingKey { case state, dueAt }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    let kind = try container.onlyKind(of: Keys.allCases, for: "a refund request's event")
    switch kind {
    case .requested: self = .requested(try container.decode(Requested.self, forKey: kind))
    case .sending: self = .sending(try container.decode(Sending.self, forKey: kind))
    case .answered: self = .answered(try container.decode(Answered.self, forKey: kind))
    case .attemptFailed:
      self = .attemptFailed(try container.decode(AttemptFailed.self, forKey: kind))
    case .closed: self = .closed(try container.decode(Closed.self, forKey: kind))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    switch self {
    case .requested(let event): try container.encode(event, forKey: .requested)
    case .sending(let event): try container.encode(event, forKey: .sending)
    case .answered(let event): try container.encode(event, forKey: .answered)
    case .attemptFailed(let event): try container.encode(event, forKey: .attemptFailed)
    case .closed(let event): try container.encode(event, forKey: .closed)
    }
    var index = encoder.container(keyedBy: Index.self)
    try index.encode(state.rawValue, forKey: .state)
    try index.encodeIfPresent(dueAt, forKey: .dueAt)
  }
}
