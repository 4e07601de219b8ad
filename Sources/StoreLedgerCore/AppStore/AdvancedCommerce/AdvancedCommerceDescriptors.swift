/// The customer-facing description of an Advanced Commerce purchase or item.
public struct AdvancedCommerceDescriptors: Hashable, Sendable, Codable {
  public var description: String?
  public var displayName: String?

  public init() {}
}
