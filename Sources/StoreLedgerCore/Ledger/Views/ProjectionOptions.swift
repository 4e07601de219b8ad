/// Policy choices Apple leaves to the developer.
public struct ProjectionOptions: Hashable, Sendable {
  /// Whether a subscription in billing retry (status 3) keeps its entitlements. Apple's advice
  /// and the default: no.
  public var billingRetryIsEntitled: Bool
  /// Whether purchases made in Sandbox entitle. The default, yes: App Review and TestFlight
  /// buy in Sandbox against production servers. Decided by the environment Apple signed into
  /// the transaction (facts from event types `*.v3` on; older ones entitle as before).
  public var sandboxEntitles: Bool
  /// Whether a `RESCIND_CONSENT` (a parent withdrew consent for a child's download) ends the
  /// entitlements of that download's purchases from the notification's `signedDate` (rule
  /// E6). Off by default: Apple asks the developer to act under its own policy and law, and
  /// the change feed tells the backend either way.
  public var rescindedConsentEndsEntitlements: Bool

  public init(
    billingRetryIsEntitled: Bool = false, sandboxEntitles: Bool = true,
    rescindedConsentEndsEntitlements: Bool = false
  ) {
    self.billingRetryIsEntitled = billingRetryIsEntitled
    self.sandboxEntitles = sandboxEntitles
    self.rescindedConsentEndsEntitlements = rescindedConsentEndsEntitlements
  }

  /// Whether a purchase signed in `environment` may entitle at all.
  public func entitles(in environment: AppStoreEnvironment?) -> Bool {
    sandboxEntitles || environment != .sandbox
  }

  public func isEntitled(_ status: SubscriptionStatus) -> Bool {
    status == .active || status == .billingGracePeriod
      || (status == .billingRetry && billingRetryIsEntitled)
  }
}
