/// `multiSeatInfo` of a renewal info: the price tiers of the next renewal when it is
/// multiseat (its `renewalPrice` is then the average per seat).
public struct RenewalMultiSeatInfo: Hashable, Sendable, Codable {
  public var renewalPriceTiers: [MultiSeatPriceTier]?

  public init(renewalPriceTiers: [MultiSeatPriceTier]? = nil) {
    self.renewalPriceTiers = renewalPriceTiers
  }
}
