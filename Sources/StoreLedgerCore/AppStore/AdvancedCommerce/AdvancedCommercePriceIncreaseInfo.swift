/// A scheduled or pending price increase of an Advanced Commerce item.
public struct AdvancedCommercePriceIncreaseInfo: Hashable, Sendable, Codable {
  public var dependentSKUs: [String]?
  public var price: Int64?
  public var status: AdvancedCommercePriceIncreaseStatus?

  public init() {}
}
