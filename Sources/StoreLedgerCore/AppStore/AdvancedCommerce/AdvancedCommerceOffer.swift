/// An offer applied to an Advanced Commerce item.
public struct AdvancedCommerceOffer: Hashable, Sendable, Codable {
  public var period: String?
  public var periodCount: Int32?
  public var price: Int64?
  public var reason: String?

  public init() {}
}
