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
