import Foundation

/// The revenue analytics kept for warehouses and fast reads (`storeledger_analytics`): each
/// purchase chain's timeline, replaced whole when the chain's events change.
public protocol RevenueAnalyticsStore: Sendable {
  /// Replaces every row of each chain with its timelines.
  func storeRevenue(_ chains: [ChainRevenue]) async throws(EventStoreError)

  /// Deletes every row (a rebuild makes them again from the log).
  func clearRevenue() async throws(EventStoreError)

  /// Up to `limit` chains whose rows were made from an event after `position`, by position
  /// (then chain): an incremental export's page.
  func revenueChains(after position: FeedPosition, limit: Int) async throws(EventStoreError)
    -> [ChainRevenue]
}

/// One purchase chain's rows: its stream, the feed position and recording time of the newest
/// event they were made from, and its timelines (one, unless the stream holds more than one
/// chain).
public struct ChainRevenue: Hashable, Sendable {
  public var chain: String
  public var position: FeedPosition
  public var recordedAt: Date
  public var timelines: [RevenueTimeline]

  public init(chain: String, position: FeedPosition, recordedAt: Date, timelines: [RevenueTimeline])
  {
    self.chain = chain
    self.position = position
    self.recordedAt = recordedAt
    self.timelines = timelines
  }
}
