/// What a customer pays and under which offer: of a transaction (its period's price), or of a
/// renewal info (the next period's `renewalPrice`), with the environment Apple signed. Shown
/// by the account view; no projection rule decides by them. Part of the facts from event
/// types `*.v3` on (older rows have none: ``TransactionFacts/terms`` is nil).
public struct PriceTerms: Hashable, Sendable {
  /// In milliunits of `currency` (Apple's `price` or `renewalPrice`).
  public var price: Int64?
  /// ISO 4217.
  public var currency: String?
  public var offerType: OfferType?
  public var offerIdentifier: String?
  public var offerDiscountType: OfferDiscountType?
  /// ISO 8601 duration of the offer (Apple's `offerPeriod`).
  public var offerPeriod: String?
  public var environment: AppStoreEnvironment?
  /// Transactions only: the App Store country (ISO 3166-1 alpha-3).
  public var storefront: String?

  /// Nil when Apple signed none of these (so facts without terms stay as they were).
  public init?(
    price: Int64?, currency: String?, offerType: OfferType?, offerIdentifier: String?,
    offerDiscountType: OfferDiscountType?, offerPeriod: String?,
    environment: AppStoreEnvironment?, storefront: String? = nil
  ) {
    guard
      price != nil || currency != nil || offerType != nil || offerIdentifier != nil
        || offerDiscountType != nil || offerPeriod != nil || environment != nil
        || storefront != nil
    else { return nil }
    self.price = price
    self.currency = currency
    self.offerType = offerType
    self.offerIdentifier = offerIdentifier
    self.offerDiscountType = offerDiscountType
    self.offerPeriod = offerPeriod
    self.environment = environment
    self.storefront = storefront
  }

  /// Into a facts digest, member by member.
  func add(to digest: inout StableDigest) {
    digest.add(price)
    digest.add(currency)
    digest.add(offerType.map { Int64($0.rawValue) })
    digest.add(offerIdentifier)
    digest.add(offerDiscountType?.rawValue)
    digest.add(offerPeriod)
    digest.add(environment?.rawValue)
    digest.add(storefront)
  }
}

extension PriceTerms {
  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// Reads the terms from the facts' own members (Apple's names; the price under
  /// `priceMember`: `price` for a transaction, `renewalPrice` for a renewal info).
  init?(from decoder: any Decoder, priceMember: String) throws {
    let container = try decoder.container(keyedBy: Key.self)
    func value<T: Decodable>(_ name: String, _ type: T.Type = T.self) throws -> T? {
      try container.decodeIfPresent(T.self, forKey: Key(stringValue: name))
    }
    self.init(
      price: try value(priceMember), currency: try value("currency"),
      offerType: try value("offerType"), offerIdentifier: try value("offerIdentifier"),
      offerDiscountType: try value("offerDiscountType"), offerPeriod: try value("offerPeriod"),
      environment: try value("environment"), storefront: try value("storefront"))
  }

  /// Writes the terms as members of the facts' object, those present only.
  func encode(to encoder: any Encoder, priceMember: String) throws {
    var container = encoder.container(keyedBy: Key.self)
    try container.encodeIfPresent(price, forKey: Key(stringValue: priceMember))
    try container.encodeIfPresent(currency, forKey: Key(stringValue: "currency"))
    try container.encodeIfPresent(offerType, forKey: Key(stringValue: "offerType"))
    try container.encodeIfPresent(offerIdentifier, forKey: Key(stringValue: "offerIdentifier"))
    try container.encodeIfPresent(
      offerDiscountType, forKey: Key(stringValue: "offerDiscountType"))
    try container.encodeIfPresent(offerPeriod, forKey: Key(stringValue: "offerPeriod"))
    try container.encodeIfPresent(environment, forKey: Key(stringValue: "environment"))
    try container.encodeIfPresent(storefront, forKey: Key(stringValue: "storefront"))
  }
}
