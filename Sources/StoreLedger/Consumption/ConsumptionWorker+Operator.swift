import Foundation
import StoreLedgerCore

/// What operators do with refund requests: answer one now (with the policy's answer or their
/// own choices), and see what a policy would have answered for past ones.
extension ConsumptionWorker {
  /// An operator's choices that replace the policy's.
  public struct Override: Sendable, Hashable, Codable {
    public var refundPreference: RefundPreference?
    public var deliveryStatus: DeliveryStatus?
    public var consumptionPercentage: Int32?

    public init(
      refundPreference: RefundPreference? = nil, deliveryStatus: DeliveryStatus? = nil,
      consumptionPercentage: Int32? = nil
    ) {
      self.refundPreference = refundPreference
      self.deliveryStatus = deliveryStatus
      self.consumptionPercentage = consumptionPercentage
    }

    var isEmpty: Bool {
      refundPreference == nil && deliveryStatus == nil && consumptionPercentage == nil
    }
  }

  /// Answers the open request `id` now, whether or not it is due: the policy's answer with
  /// `override` applied, claimed as the operator's, sent and recorded. Refused with
  /// `conflict` when the request is over or another claim holds it, `invalid_request` when the
  /// answer would break Apple's rules. The report says what Apple did with it.
  public func answer(_ id: String, override: Override = .init()) async throws(LedgerError)
    -> ConsumptionRequestReport
  {
    let streamId = try await ledger.consumptionStreamId(id)
    let now = Timestamp(configuration.now())
    let (request, _) = try await ledger.loadConsumptionRequest(streamId)
    guard request.phase.isOpen else {
      throw LedgerError(.conflict, "the request is \(request.phase.rawValue); nothing was sent")
    }
    let decision = try await policyDecision(request, at: now)
    guard var answer = decision.answer else {
      throw LedgerError(.conflict, "nothing may be sent: \(decision.skipReason ?? "")")
    }
    var reasons = decision.reasons
    if !override.isEmpty {
      answer.refundPreference = override.refundPreference ?? answer.refundPreference
      answer.deliveryStatus = override.deliveryStatus ?? answer.deliveryStatus
      answer.consumptionPercentage = override.consumptionPercentage ?? answer.consumptionPercentage
      if answer.deliveryStatus != .delivered, answer.consumptionPercentage != nil {
        answer.consumptionPercentage = 0
      }
      reasons.append("an operator chose part of the answer")
    }
    if let violation = answer.violation(for: request.requested.productType) {
      throw LedgerError(
        .invalidRequest,
        "the answer would break Apple's rules (\(violation.rawValue)); nothing was sent")
    }
    let claimed = try await ledger.decideConsumption(
      .claim(
        answer: answer, reasons: reasons, source: "operator", worker: configuration.workerId,
        lease: Self.milliseconds(configuration.lease)), streamId: streamId, now: now,
      source: "operator", known: request)
    _ = try await send(claimed, streamId: streamId)
    return try await ledger.consumptionReport(streamId: streamId, withEvents: true)
  }
}

/// One past request: what was sent, what a policy would send, and Apple's decision.
public struct ConsumptionDryRunLine: Sendable, Hashable, Codable {
  public var requestId: String
  public var transactionId: String
  public var productType: ProductType?
  public var state: ConsumptionRequest.Phase
  public var sent: ConsumptionInformation?
  public var wouldSend: ConsumptionInformation?
  public var skipReason: String?
  public var reasons: [String]
  public var appleDecision: RefundDecision?
  /// The policy's answer differs from the one sent.
  public var changed: Bool
}

extension Ledger {
  /// What `policy` answers for `request` from what the ledger knows of the purchase at `time`.
  public func consumptionDecision(
    _ request: ConsumptionRequest, policy: ConsumptionPolicy, at time: Timestamp
  ) async throws(LedgerError) -> ConsumptionPolicy.Decision {
    guard let facts = try await consumptionFacts(for: request.requested, at: time) else {
      // The notification carried the transaction, so its chain is in the log unless the log
      // was written before requests were kept: nothing the policy could stand on.
      return ConsumptionPolicy.Decision(
        answer: nil, reasons: [], skipReason: "the log holds no transaction for the request")
    }
    return policy.decide(facts)
  }

  /// What `policy` would have answered for the newest `limit` requests, judged by what the
  /// ledger knew when each was answered (or asked, for those never answered). Sends and
  /// stores nothing.
  public func consumptionDryRun(policy: ConsumptionPolicy, limit: Int = 100)
    async throws(LedgerError) -> [ConsumptionDryRunLine]
  {
    var lines: [ConsumptionDryRunLine] = []
    for report in try await consumptionRequests(limit: limit) {
      let streamId = Self.consumptionStream(
        environment: report.environment, requestId: report.requestId)
      let (request, _) = try await loadConsumptionRequest(streamId)
      let decision = try await consumptionDecision(
        request, policy: policy, at: report.answeredAt ?? report.requestedAt)
      lines.append(
        ConsumptionDryRunLine(
          requestId: report.requestId, transactionId: report.transactionId,
          productType: report.productType, state: report.state, sent: report.answer,
          wouldSend: decision.answer, skipReason: decision.skipReason,
          reasons: decision.reasons, appleDecision: report.appleDecision,
          changed: decision.answer != report.answer))
    }
    return lines
  }
}
