/// `advancedCommerceInfo` of renewal info for an Advanced Commerce subscription.
public struct AdvancedCommerceRenewalInfo: Hashable, Sendable, Codable {
  public var consistencyToken: String?
  public var descriptors: AdvancedCommerceDescriptors?
  public var items: [AdvancedCommerceRenewalItem]?
  public var period: String?
  public var requestReferenceId: String?
  public var taxCode: String?

  public init() {}
}
