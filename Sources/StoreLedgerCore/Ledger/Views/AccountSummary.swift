/// What one account has at one time: its entitlements, its subscriptions and its consumable
/// balances. The per-account read model stores one, with the span of time it holds for.
public struct AccountSummary: Hashable, Sendable, Codable {
  public var entitlements: [EntitlementView]
  public var subscriptions: [SubscriptionView]
  public var consumables: [ConsumableView]

  public init(
    entitlements: [EntitlementView], subscriptions: [SubscriptionView],
    consumables: [ConsumableView]
  ) {
    self.entitlements = entitlements
    self.subscriptions = subscriptions
    self.consumables = consumables
  }

  /// The account's part of `view` at `time`.
  public init(_ view: LedgerView, for appAccountToken: String, at time: Timestamp) {
    let snapshot = view.snapshot(at: time)
    self.init(
      entitlements: snapshot.entitlements.filter { $0.appAccountToken == appAccountToken },
      subscriptions: snapshot.subscriptions.filter { $0.appAccountToken == appAccountToken },
      consumables: snapshot.consumables.filter { $0.appAccountToken == appAccountToken })
  }
}
