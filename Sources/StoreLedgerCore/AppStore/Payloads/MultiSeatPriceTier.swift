/// One price tier of a multiseat purchase: `tierQuantity` seats at `tierPrice` each
/// (milliunits of the transaction's currency). The amount charged is the sum over the tiers.
public struct MultiSeatPriceTier: Hashable, Sendable, Codable {
  public var tierPrice: Int64?
  public var tierQuantity: Int32?

  public init(tierPrice: Int64? = nil, tierQuantity: Int32? = nil) {
    self.tierPrice = tierPrice
    self.tierQuantity = tierQuantity
  }
}
