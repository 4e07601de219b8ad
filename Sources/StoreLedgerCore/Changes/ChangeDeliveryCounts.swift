/// Per endpoint: deliveries accepted ever (a counter), pending ones split into retrying
/// (tried at least once) and waiting, dead ones, and the age of its oldest pending change.
public struct ChangeDeliveryCounts: Sendable, Hashable, Encodable {
  public var endpoint: String
  public var delivered: Int
  public var retrying: Int
  public var waiting: Int
  public var dead: Int
  public var lagSeconds: Double
  /// Changes after the endpoint's `enqueued_through`, not queued yet.
  public var unqueued: Int

  public init(
    endpoint: String, delivered: Int, retrying: Int, waiting: Int, dead: Int,
    lagSeconds: Double, unqueued: Int
  ) {
    self.endpoint = endpoint
    self.delivered = delivered
    self.retrying = retrying
    self.waiting = waiting
    self.dead = dead
    self.lagSeconds = lagSeconds
    self.unqueued = unqueued
  }
}
