import Foundation
import StoreLedgerCore

extension ConsumptionRequests {
  /// What `policy` answers for `request` from what the ledger knows of the purchase at `time`.
  public func decision(
    _ request: ConsumptionRequest, policy: ConsumptionPolicy, at time: Timestamp
  ) async throws(LedgerError) -> ConsumptionPolicy.Decision {
    guard let facts = try await facts(for: request.requested, at: time) else {
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
  public func dryRun(policy: ConsumptionPolicy, limit: Int = 100)
    async throws(LedgerError) -> [ConsumptionDryRunLine]
  {
    var lines: [ConsumptionDryRunLine] = []
    for report in try await list(limit: limit) {
      let streamId = Self.stream(
        environment: report.environment, requestId: report.requestId)
      let (request, _) = try await load(streamId)
      let decision = try await decision(
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
