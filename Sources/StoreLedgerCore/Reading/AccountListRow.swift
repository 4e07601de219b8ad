/// One account in a list: what its stored view holds, in the list's columns.
public struct AccountListRow: Sendable, Hashable {
  public var appAccountToken: String
  /// When the view last changed (the start of the interval it holds for); the Unix epoch when
  /// it holds from the beginning.
  public var changedAt: Timestamp
  /// Its subscriptions' statuses, ascending, each once.
  public var statuses: [Int32]
  /// The entitlements it holds in force, sorted.
  public var entitlements: [String]
  /// Its subscriptions' and consumables' products.
  public var products: [String]
  public var storefronts: [String]
  public var environments: [String]
  /// The earliest end of an active subscription's current period.
  public var nextExpiry: Timestamp?
  /// Whether its view has been made: an account the log names but the projector has not
  /// reached yet is listed with no facts, and says so (its page reads it from the log).
  public var viewMade: Bool

  public init(
    appAccountToken: String, changedAt: Timestamp, statuses: [Int32], entitlements: [String],
    products: [String], storefronts: [String], environments: [String], nextExpiry: Timestamp?,
    viewMade: Bool = true
  ) {
    self.appAccountToken = appAccountToken
    self.changedAt = changedAt
    self.statuses = statuses
    self.entitlements = entitlements
    self.products = products
    self.storefronts = storefronts
    self.environments = environments
    self.nextExpiry = nextExpiry
    self.viewMade = viewMade
  }

  /// The row of a stored view: the one rule for a list's columns, applied where a view is
  /// built and stored beside it (an append that only counts a change never pays for it).
  public init(appAccountToken: String, changedAt: Timestamp, summary: AccountSummary?) {
    let subscriptions = summary?.subscriptions ?? []
    let consumables = summary?.consumables ?? []
    let entitlements = summary?.entitlements ?? []
    func sorted(_ values: some Sequence<String?>) -> [String] {
      Array(Set(values.compactMap { $0 }.filter { !$0.isEmpty })).sorted()
    }
    self.init(
      appAccountToken: appAccountToken, changedAt: changedAt,
      statuses: Array(Set(subscriptions.map(\.status))).sorted(),
      entitlements: sorted(entitlements.filter(\.active).map(\.entitlement)),
      products: sorted(subscriptions.map(\.productId)) + sorted(consumables.map(\.productId)),
      storefronts: sorted(subscriptions.map(\.storefront)),
      environments: sorted(
        subscriptions.map(\.environment) + entitlements.map(\.environment)
          + consumables.flatMap(\.environments)),
      nextExpiry: subscriptions.filter { $0.status == 1 }.compactMap(\.expiresDate).min(),
      viewMade: summary != nil)
  }

  /// The list's order: newest change first, then token, descending.
  public func comesBefore(_ other: AccountListRow) -> Bool {
    (changedAt.milliseconds, appAccountToken) > (
      other.changedAt.milliseconds, other.appAccountToken
    )
  }
}

/// Where a page of an account list ends: the last row's change time and token.
public struct AccountListKey: Sendable, Hashable {
  public var changedAt: Timestamp
  public var appAccountToken: String

  public init(changedAt: Timestamp, appAccountToken: String) {
    self.changedAt = changedAt
    self.appAccountToken = appAccountToken
  }
}
