/// What Apple decided about a refund request: the first REFUND or REFUND_DECLINED about the
/// purchase signed at or after the request.
public struct RefundDecision: Hashable, Sendable, Codable {
  /// `REFUND` or `REFUND_DECLINED`.
  public var notificationType: String
  public var signedDate: Timestamp?
  /// The notification's idempotency key (`asn2:<uuid>`), for the explanation.
  public var event: String?

  public var refunded: Bool { notificationType == NotificationType.refund.rawValue }

  /// Apple's decision about `request`, found in the purchase chain's events.
  public static func find(for request: ConsumptionEvent.Requested, in events: [LedgerEvent])
    -> RefundDecision?
  {
    events.compactMap { event -> RefundDecision? in
      guard case .notification(let facts) = event.body,
        facts.notificationType == .refund || facts.notificationType == .refundDeclined,
        facts.transaction?.transactionId == request.transactionId,
        (facts.signedDate?.milliseconds ?? .min) >= request.requestedAt.milliseconds
      else { return nil }
      return RefundDecision(
        notificationType: facts.notificationType?.rawValue ?? "", signedDate: facts.signedDate,
        event: event.key)
    }.min { ($0.signedDate?.milliseconds ?? 0) < ($1.signedDate?.milliseconds ?? 0) }
  }
}
