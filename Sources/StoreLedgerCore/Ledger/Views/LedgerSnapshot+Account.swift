extension LedgerSnapshot {
  /// The items of one account: its subscriptions, purchases, balances and entitlements, and
  /// the refunds of its purchases (a revocation is the account's when the purchase it
  /// revokes is).
  public func part(for appAccountToken: String) -> LedgerSnapshot {
    var part = self
    part.subscriptions = subscriptions.filter { $0.appAccountToken == appAccountToken }
    part.purchases = purchases.filter { $0.appAccountToken == appAccountToken }
    part.consumables = consumables.filter { $0.appAccountToken == appAccountToken }
    part.entitlements = entitlements.filter { $0.appAccountToken == appAccountToken }
    let owned = Set(
      part.subscriptions.map(\.originalTransactionId) + part.purchases.map(\.originalTransactionId)
        + consumedPurchases(of: appAccountToken))
    part.revocations = revocations.filter { owned.contains($0.originalTransactionId) }
    // A member's own claims, and the claims on the account's own group subscriptions.
    part.seatClaims = seatClaims.filter {
      $0.appAccountToken == appAccountToken || owned.contains($0.originalTransactionId)
    }
    part.supportGrants = supportGrants.filter { $0.appAccountToken == appAccountToken }
    part.consentRescinded = consentRescinded.filter {
      $0.accounts.isEmpty || $0.accounts.contains(appAccountToken)
    }
    return part
  }

  /// Consumable purchases are not listed as purchases: a refunded one is the account's when
  /// its balance is (the revocation names the product).
  private func consumedPurchases(of token: String) -> [String] {
    let products = Set(consumables.filter { $0.appAccountToken == token }.map(\.productId))
    return revocations.filter { $0.productId.map(products.contains) ?? false }.map(
      \.originalTransactionId)
  }
}
