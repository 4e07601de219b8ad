/// Which accounts a list holds: every field set narrows it (all must match); none set lists
/// every account. Read from each account's stored view, so the list says what the views said
/// when they were last projected.
public struct AccountListFilter: Sendable, Hashable {
  /// A subscription of the account has this status (1 active, 2 expired, 3 billing retry,
  /// 4 grace period, 5 revoked, or a status Apple adds later).
  public var status: Int32?
  /// The account holds this entitlement in force.
  public var entitlement: String?
  /// A subscription or consumable of the account is of this product.
  public var productId: String?
  /// A subscription of the account was bought in this storefront (Apple's three letters).
  public var storefront: String?
  /// The account holds data Apple signed in this environment.
  public var environment: String?
  /// The account's view changed at or after this time.
  public var changedSince: Timestamp?
  /// An active subscription's current period ends in `[expiresFrom, expiresBefore)`.
  public var expiresFrom: Timestamp?
  public var expiresBefore: Timestamp?
  /// The account's token starts with this (lower case, dashes where a token has them).
  public var tokenPrefix: String?

  public init(
    status: Int32? = nil, entitlement: String? = nil, productId: String? = nil,
    storefront: String? = nil, environment: String? = nil, changedSince: Timestamp? = nil,
    expiresFrom: Timestamp? = nil, expiresBefore: Timestamp? = nil, tokenPrefix: String? = nil
  ) {
    self.status = status
    self.entitlement = entitlement
    self.productId = productId
    self.storefront = storefront
    self.environment = environment
    self.changedSince = changedSince
    self.expiresFrom = expiresFrom
    self.expiresBefore = expiresBefore
    self.tokenPrefix = tokenPrefix
  }

  /// The filter's fields in a fixed order, for a page cursor to name the list it belongs to.
  public var canonicalText: String {
    [
      "status=\(status.map(String.init) ?? "")", "entitlement=\(entitlement ?? "")",
      "product=\(productId ?? "")", "storefront=\(storefront ?? "")",
      "environment=\(environment ?? "")",
      "changedSince=\(changedSince.map { String($0.milliseconds) } ?? "")",
      "expiresFrom=\(expiresFrom.map { String($0.milliseconds) } ?? "")",
      "expiresBefore=\(expiresBefore.map { String($0.milliseconds) } ?? "")",
      "prefix=\(tokenPrefix ?? "")",
    ].joined(separator: "&")
  }

  /// Whether `row` belongs to the list (the in-memory and the SQL reading answer alike).
  public func admits(_ row: AccountListRow) -> Bool {
    if let status, !row.statuses.contains(status) { return false }
    if let entitlement, !row.entitlements.contains(entitlement) { return false }
    if let productId, !row.products.contains(productId) { return false }
    if let storefront, !row.storefronts.contains(storefront) { return false }
    if let environment, !row.environments.contains(environment) { return false }
    if let changedSince, row.changedAt.milliseconds < changedSince.milliseconds { return false }
    if expiresFrom != nil || expiresBefore != nil {
      guard let end = row.nextExpiry?.milliseconds else { return false }
      if let expiresFrom, end < expiresFrom.milliseconds { return false }
      if let expiresBefore, end >= expiresBefore.milliseconds { return false }
    }
    if let tokenPrefix, !row.appAccountToken.hasPrefix(tokenPrefix) { return false }
    return true
  }
}
