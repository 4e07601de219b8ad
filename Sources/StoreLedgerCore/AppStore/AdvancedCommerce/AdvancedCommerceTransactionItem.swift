/// One SKU of an Advanced Commerce transaction.
public struct AdvancedCommerceTransactionItem: Hashable, Sendable, Codable {
  public var sku: String?
  public var description: String?
  public var displayName: String?
  public var offer: AdvancedCommerceOffer?
  public var price: Int64?
  public var refunds: [AdvancedCommerceRefund]?
  public var revocationDate: Timestamp?

  public init() {}

  enum CodingKeys: String, CodingKey {
    case sku = "SKU"
    case description, displayName, offer, price, refunds, revocationDate
  }
}
