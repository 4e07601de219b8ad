/// A delivery's place in the delivery log's lists: the newest change first, then by endpoint.
public struct ChangeDeliveryKey: Sendable, Hashable {
  public var position: Int64
  public var endpoint: String

  public init(position: Int64, endpoint: String) {
    self.position = position
    self.endpoint = endpoint
  }

  /// Whether `delivery` comes after `self` in a list's order.
  public func precedes(_ delivery: ChangeDelivery) -> Bool {
    delivery.position < position || (delivery.position == position && delivery.endpoint > endpoint)
  }
}
