/// What each product grants: entitlement names, units per purchased consumable, the length
/// of a non-renewing subscription. A product missing from the catalog is its own entitlement,
/// worth one unit, with no end.
public struct ProductCatalog: Hashable, Sendable, Codable {
  public var products: [String: Product]

  public struct Product: Hashable, Sendable, Codable {
    public var entitlements: [String]?
    /// Consumable units credited per purchased quantity (default 1).
    public var units: Int64?
    /// Length of a non-renewing subscription from its `purchaseDate`.
    public var durationDays: Int64?

    public init(entitlements: [String]? = nil, units: Int64? = nil, durationDays: Int64? = nil) {
      self.entitlements = entitlements
      self.units = units
      self.durationDays = durationDays
    }
  }

  public init(products: [String: Product] = [:]) {
    self.products = products
  }

  public static let empty = ProductCatalog()

  public func entitlements(of productId: String) -> [String] {
    guard let names = products[productId]?.entitlements, !names.isEmpty else { return [productId] }
    return names
  }

  public func units(of productId: String) -> Int64 {
    products[productId]?.units ?? 1
  }

  /// When a non-renewing subscription bought at `purchaseDate` ends; nil when the catalog
  /// gives no duration.
  public func nonRenewingEnd(of productId: String, purchasedAt purchaseDate: Timestamp?)
    -> Timestamp?
  {
    guard let days = products[productId]?.durationDays, let purchaseDate else { return nil }
    return Timestamp(milliseconds: purchaseDate.milliseconds + days * 86_400_000)
  }
}
