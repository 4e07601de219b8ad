import AppStoreServerAPI
import Foundation
import StoreLedgerCore
import Synchronization

/// A customer's refund request as Apple handles it: a CONSUMPTION_REQUEST, then, once the
/// developer's consumption information arrives (or twelve hours pass without it), Apple's
/// decision, drawn from a seed and weighted by what the developer said: REFUND (the
/// transaction revoked) or REFUND_DECLINED.
struct RefundRequest: Sendable {
  var uuid: String
  var requestedAt: Int64
  var decided: Bool
}

/// One body of Send Consumption Information the simulator received.
public struct ConsumptionAnswer: Sendable, Hashable {
  public var transactionId: String
  public var information: ConsumptionInformation
  public var receivedAt: Timestamp
}

extension SimulatedAppStore {
  /// The customer asks for a refund of `transactionId`: Apple sends CONSUMPTION_REQUEST at the
  /// store's time; nil for an unknown transaction.
  @discardableResult
  public func requestRefund(of transactionId: String) -> String? {
    guard let transaction = transaction(transactionId) else { return nil }
    let uuid = UUID().uuidString.lowercased()
    state.withLock {
      $0.refundRequests[transactionId] = RefundRequest(
        uuid: uuid, requestedAt: $0.now.milliseconds, decided: false)
    }
    let status = transaction.type == .autoRenewableSubscription ? statusOfChain(transaction) : nil
    return notify(.consumptionRequest, transaction: transaction, status: status, uuid: uuid)
  }

  /// Send Consumption Information (v2): Apple's checks, then the decision on an open request.
  /// A second body for a decided request is accepted and changes nothing.
  public func receiveConsumption(_ transactionId: String, _ body: ConsumptionInformation)
    throws(APIErrorResponse.Failure)
  {
    let transaction = try consumptionSubject(transactionId)
    if let violation = body.violation(for: transaction.type) {
      throw .init(violation.apiErrorCode ?? .generalBadRequest, violation.rawValue)
    }
    record(body, about: transaction, id: transactionId)
  }

  /// Send Consumption Information version 1: Apple's field errors for its integer codes,
  /// then the same answer as version 2 gives.
  public func receiveConsumptionV1(_ transactionId: String, _ body: ConsumptionRequestV1)
    throws(APIErrorResponse.Failure)
  {
    let transaction = try consumptionSubject(transactionId)
    if let code = body.violation { throw .init(code, "a field of the request is not valid") }
    record(body.information(for: transaction.type), about: transaction, id: transactionId)
  }

  /// The transaction consumption information is sent about, or Apple's error for the id.
  private func consumptionSubject(_ transactionId: String) throws(APIErrorResponse.Failure)
    -> JWSTransactionDecodedPayload
  {
    try Self.checkIdentifier(transactionId)
    guard let transaction = transaction(transactionId) else {
      throw .init(.transactionIdNotFound, "transaction id not found")
    }
    if transaction.inAppOwnershipType == .familyShared {
      throw .init(.familyTransactionNotSupported, "family-shared transactions are not supported")
    }
    return transaction
  }

  private func record(
    _ body: ConsumptionInformation, about transaction: JWSTransactionDecodedPayload,
    id transactionId: String
  ) {
    let request = state.withLock { state -> RefundRequest? in
      state.consumptionAnswers.append(
        ConsumptionAnswer(transactionId: transactionId, information: body, receivedAt: state.now))
      guard var request = state.refundRequests[transactionId], !request.decided,
        state.now.milliseconds <= request.requestedAt + ConsumptionEvent.Requested.window
      else { return nil }
      request.decided = true
      state.refundRequests[transactionId] = request
      return request
    }
    if let request { decide(request, about: transaction, answer: body) }
  }

  /// Apple decides alone on requests whose twelve hours passed without an answer.
  public func settleRefundRequests() {
    let due = state.withLock { state -> [(String, RefundRequest)] in
      let open = state.refundRequests.filter {
        !$0.value.decided
          && state.now.milliseconds > $0.value.requestedAt + ConsumptionEvent.Requested.window
      }
      for (id, _) in open { state.refundRequests[id]?.decided = true }
      return open.map { ($0.key, $0.value) }
    }
    for (id, request) in due {
      if let transaction = transaction(id) { decide(request, about: transaction, answer: nil) }
    }
  }

  /// Every consumption body received, in order.
  public func consumptionAnswers() -> [ConsumptionAnswer] {
    state.withLock { $0.consumptionAnswers }
  }

  /// The chance Apple grants a refund given the developer's answer (none: Apple alone).
  static func refundChance(_ answer: ConsumptionInformation?) -> Double {
    guard let answer else { return 0.5 }
    if answer.deliveryStatus != .delivered { return 1 }
    switch answer.refundPreference {
    case .grantFull?: return 0.9
    case .grantProrated?: return 0.75
    case .decline?: return 0.1
    default: return 0.5
    }
  }

  private func decide(
    _ request: RefundRequest, about transaction: JWSTransactionDecodedPayload,
    answer: ConsumptionInformation?
  ) {
    var digest = StableDigest()
    digest.add(request.uuid)
    let draw = Double(digest.value % 10_000) / 10_000
    guard draw < Self.refundChance(answer) else {
      notify(.refundDeclined, transaction: transaction, status: statusOfChain(transaction))
      return
    }
    var refunded = transaction
    refunded.revocationDate = now
    refunded.revocationReason = .other
    if answer?.refundPreference == .grantProrated {
      refunded.revocationType = .refundProrated
      refunded.revocationPercentage = 100_000 - (answer?.consumptionPercentage ?? 50_000)
    } else {
      refunded.revocationType = .refundFull
    }
    if let id = transaction.transactionId, let customer = customer(of: id) {
      put(refunded, customer: customer)
    }
    notify(.refund, transaction: refunded, status: statusOfChain(refunded))
  }

  /// Apple's status of the subscription `transaction` belongs to (nil for other products):
  /// that of its newest period.
  private func statusOfChain(_ transaction: JWSTransactionDecodedPayload) -> SubscriptionStatus? {
    guard transaction.type == .autoRenewableSubscription, let id = transaction.transactionId,
      let customer = customer(of: id)
    else { return nil }
    let periods: [JWSTransactionDecodedPayload] = history(of: customer).map(\.payload).filter {
      $0.originalTransactionId == transaction.originalTransactionId && $0.isUpgraded != true
    }
    let newest = periods.max(by: Self.boughtBefore)
    return newest.map(derivedStatus) ?? .active
  }
}

extension SimulatedAppStore {
  /// Up to `count` purchases a customer might ask to have refunded, spread evenly over the
  /// store: consumables and the newest period of each subscription, not revoked, bought
  /// in the app (with an account token).
  public func refundCandidates(_ count: Int) -> [String] {
    let candidates = state.withLock { state in
      var newestOfChain: [String: JWSTransactionDecodedPayload] = [:]
      var consumables: [String] = []
      for stored in state.transactions.values {
        let transaction = stored.payload
        guard let id = transaction.transactionId, transaction.revocationDate == nil,
          transaction.appAccountToken != nil, transaction.inAppOwnershipType != .familyShared
        else { continue }
        if transaction.type == .consumable { consumables.append(id) }
        guard transaction.type == .autoRenewableSubscription, transaction.isUpgraded != true,
          let chain = transaction.originalTransactionId
        else { continue }
        if (newestOfChain[chain]?.purchaseDate?.milliseconds ?? .min)
          < (transaction.purchaseDate?.milliseconds ?? 0)
        {
          newestOfChain[chain] = transaction
        }
      }
      return (consumables + newestOfChain.values.compactMap(\.transactionId)).sorted()
    }
    guard count > 0, !candidates.isEmpty else { return [] }
    let step = max(1, candidates.count / count)
    return Array(
      stride(from: 0, to: candidates.count, by: step).map { candidates[$0] }.prefix(count))
  }
}
