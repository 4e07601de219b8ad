/// What a revenue row is grouped by, from the transaction that made it: Apple's product,
/// subscription group, storefront, currency, environment and offer.
public struct MetricsAttributes: Hashable, Sendable, Codable {
  public var productId: String?
  public var subscriptionGroup: String?
  /// ISO 3166-1 alpha-3.
  public var storefront: String?
  /// ISO 4217; `XXX` (ISO's "no currency") when Apple signed no price, as in rows stored
  /// before prices were kept.
  public var currency: String
  /// `Production`, `Sandbox`, …; `unknown` when the facts carry none.
  public var environment: String
  /// `<offerType>:<offerIdentifier>`, `none` without an offer.
  public var offer: String

  public static let noCurrency = "XXX"

  public init(
    productId: String?, subscriptionGroup: String?, storefront: String?, currency: String?,
    environment: String?, offer: String
  ) {
    self.productId = productId
    self.subscriptionGroup = subscriptionGroup
    self.storefront = storefront
    self.currency = currency.map { $0.isEmpty ? Self.noCurrency : $0 } ?? Self.noCurrency
    self.environment = environment ?? "unknown"
    self.offer = offer
  }

  /// The attributes of a transaction's facts.
  init(_ facts: TransactionFacts) {
    let terms = facts.terms
    let offer =
      terms?.offerType.map { "\($0.rawValue):\(terms?.offerIdentifier ?? "")" } ?? "none"
    self.init(
      productId: facts.productId, subscriptionGroup: facts.subscriptionGroupIdentifier,
      storefront: terms?.storefront, currency: terms?.currency,
      environment: terms?.environment?.rawValue, offer: offer)
  }

  /// The value a row shows for `dimension` (`unknown` for a member Apple did not sign).
  public func value(of dimension: MetricsDimension) -> String {
    switch dimension {
    case .product: productId ?? "unknown"
    case .subscriptionGroup: subscriptionGroup ?? "none"
    case .storefront: storefront ?? "unknown"
    case .currency: currency
    case .environment: environment
    case .offer: offer
    }
  }
}
