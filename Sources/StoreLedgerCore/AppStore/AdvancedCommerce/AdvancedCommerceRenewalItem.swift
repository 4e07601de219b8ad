/// One SKU of an Advanced Commerce subscription's next renewal.
public struct AdvancedCommerceRenewalItem: Hashable, Sendable, Codable {
  public var sku: String?
  public var description: String?
  public var displayName: String?
  public var offer: AdvancedCommerceOffer?
  public var price: Int64?
  public var priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo?

  public init() {}

  enum CodingKeys: String, CodingKey {
    case sku = "SKU"
    case description, displayName, offer, price, priceIncreaseInfo
  }
}
