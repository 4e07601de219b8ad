/// Which rows of the change delivery log a list holds.
public struct ChangeDeliveryFilter: Sendable, Hashable {
  /// Only this endpoint's (its key), when given.
  public var endpoint: String?
  /// Only those in this state, when given.
  public var state: DeliveryState?
  /// Only the failing ones: dead, or pending after at least one attempt (retrying). The
  /// overview's "failing" count is the same rule over the same rows.
  public var failing: Bool

  public init(endpoint: String? = nil, state: DeliveryState? = nil, failing: Bool = false) {
    self.endpoint = endpoint
    self.state = state
    self.failing = failing
  }

  /// Whether `delivery` is in the list.
  public func holds(_ delivery: ChangeDelivery) -> Bool {
    (endpoint == nil || delivery.endpoint == endpoint)
      && (state == nil || delivery.state == state)
      && (!failing || delivery.state == .dead
        || (delivery.state == .pending && delivery.attempts > 0))
  }

  /// The filter as a cursor names it: a cursor of one filter is refused by another.
  public var text: String {
    [endpoint ?? "", state?.rawValue ?? "", failing ? "failing" : ""].joined(separator: "\n")
  }
}
