/// A refund of one Advanced Commerce item.
public struct AdvancedCommerceRefund: Hashable, Sendable, Codable {
  public var refundAmount: Int64?
  public var refundDate: Timestamp?
  public var refundReason: String?
  public var refundType: AdvancedCommerceRefundType?

  public init() {}
}
