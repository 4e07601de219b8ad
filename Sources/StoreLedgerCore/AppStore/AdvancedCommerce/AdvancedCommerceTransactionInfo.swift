/// `advancedCommerceInfo` of a transaction for an Advanced Commerce SKU.
public struct AdvancedCommerceTransactionInfo: Hashable, Sendable, Codable {
  public var descriptors: AdvancedCommerceDescriptors?
  public var estimatedTax: Int64?
  public var items: [AdvancedCommerceTransactionItem]?
  public var period: String?
  public var requestReferenceId: String?
  public var taxCode: String?
  public var taxExclusivePrice: Int64?
  public var taxRate: String?

  public init() {}
}
