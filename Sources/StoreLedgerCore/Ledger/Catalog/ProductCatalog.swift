/// What each product grants: entitlement names, units per purchased consumable, the length
/// of a non-renewing subscription. A product missing from the catalog (or listed without
/// `entitlements`) is its own entitlement, worth one unit, with no end; a product listed with
/// an empty `entitlements` grants none.
public struct ProductCatalog: Hashable, Sendable, Codable {
  public var products: [String: Product]

  public struct Product: Hashable, Sendable, Codable {
    public var entitlements: [String]?
    /// Apple's product type (`"Non-Renewing Subscription"`, …); optional, but a non-renewing
    /// product must then say how long it lasts.
    public var type: ProductType?
    /// Consumable units credited per purchased quantity (default 1).
    public var units: Int64?
    /// Length of a non-renewing subscription from its `purchaseDate`.
    public var durationDays: Int64?
    /// A free sample, trial or description was available before purchase (what refund
    /// requests tell Apple as `sampleContentProvided`; default false).
    public var sampleContentProvided: Bool?

    public init(
      entitlements: [String]? = nil, type: ProductType? = nil, units: Int64? = nil,
      durationDays: Int64? = nil, sampleContentProvided: Bool? = nil
    ) {
      self.entitlements = entitlements
      self.type = type
      self.units = units
      self.durationDays = durationDays
      self.sampleContentProvided = sampleContentProvided
    }
  }

  /// A catalog that cannot be used as written. The description names the product and the
  /// field, never customer data.
  public struct ValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    public let code = "invalid_catalog"
    public let productId: String
    public let reason: String
    public var description: String { "catalog product \"\(productId)\": \(reason)" }
  }

  public init(products: [String: Product] = [:]) {
    self.products = products
  }

  /// Decodes and validates (``validate()``): a catalog that loads is one the projections can use.
  public init(from decoder: any Decoder) throws {
    enum Keys: String, CodingKey { case products }
    let container = try decoder.container(keyedBy: Keys.self)
    products = try container.decodeIfPresent([String: Product].self, forKey: .products) ?? [:]
    try validate()
  }

  /// Refuses what would make answers wrong in silence: a non-renewing product with no
  /// `durationDays` (it would never end), non-positive durations or units, empty names.
  public func validate() throws {
    for (id, product) in products.sorted(by: { $0.key < $1.key }) {
      func refuse(_ reason: String) -> ValidationError {
        ValidationError(productId: id, reason: reason)
      }
      if product.type == .nonRenewingSubscription, product.durationDays == nil {
        throw refuse(
          "a non-renewing subscription needs \"durationDays\" (Apple gives it no expiry)")
      }
      if let days = product.durationDays, days <= 0 {
        throw refuse("\"durationDays\" must be a positive number of days")
      }
      if let units = product.units, units <= 0 {
        throw refuse("\"units\" must be a positive number")
      }
      if product.entitlements?.contains(where: \.isEmpty) == true {
        throw refuse("an entitlement name is empty")
      }
    }
  }

  public static let empty = ProductCatalog()

  /// Every entitlement name the catalog's products grant.
  public var entitlementNames: Set<String> {
    Set(products.values.flatMap { $0.entitlements ?? [] })
  }

  /// Every entitlement a product of the catalog grants.
  public var grantedEntitlements: Set<String> {
    Set(products.keys.flatMap { entitlements(of: $0) })
  }

  public func entitlements(of productId: String) -> [String] {
    products[productId]?.entitlements ?? [productId]
  }

  public func providesSample(_ productId: String) -> Bool {
    products[productId]?.sampleContentProvided ?? false
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
