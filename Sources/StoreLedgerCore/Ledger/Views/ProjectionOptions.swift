/// Policy choices Apple leaves to the developer.
public struct ProjectionOptions: Hashable, Sendable {
  /// Whether a subscription in billing retry (status 3) keeps its entitlements. Apple's advice
  /// and the default: no.
  public var billingRetryIsEntitled: Bool

  public init(billingRetryIsEntitled: Bool = false) {
    self.billingRetryIsEntitled = billingRetryIsEntitled
  }

  public func isEntitled(_ status: SubscriptionStatus) -> Bool {
    status == .active || status == .billingGracePeriod
      || (status == .billingRetry && billingRetryIsEntitled)
  }
}
