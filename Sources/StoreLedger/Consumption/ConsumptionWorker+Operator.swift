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
    let streamId = try await requests.streamId(id)
    let now = Timestamp(configuration.now())
    let (request, _) = try await requests.load(streamId)
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
    let claimed = try await requests.decide(
      .claim(
        answer: answer, reasons: reasons, source: "operator", worker: configuration.workerId,
        lease: Self.milliseconds(configuration.lease)), streamId: streamId, now: now,
      source: "operator", known: request)
    _ = try await send(claimed, streamId: streamId)
    return try await requests.report(streamId: streamId, withEvents: true)
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
