import Foundation

/// How the change feed is delivered to webhook endpoints.
public struct ChangeDeliveryConfiguration: Sendable {
  public var endpoints: [ChangeEndpoint]
  /// How long one POST may take before it counts as failed.
  public var timeout: Duration = .seconds(10)
  /// Changes claimed per round and endpoint (at most one per account).
  public var batchSize = 50
  /// POSTs in flight per endpoint.
  public var concurrency = 8
  /// The first retry's delay; each further one doubles it, up to ``maximumDelay``.
  public var initialDelay: Duration = .seconds(10)
  public var maximumDelay: Duration = .seconds(3600)
  /// After this long since the first attempt a change is dead-lettered.
  public var retryFor: Duration = .seconds(3 * 86_400)
  /// A claimed delivery another server may take over after this (a crash between sending
  /// and recording sends it again).
  public var lease: Duration = .seconds(60)
  /// Delivered rows older than this leave the delivery log (the changes stay in the feed).
  public var keepDelivered: Duration = .seconds(30 * 86_400)
  /// How often an idle deliverer looks for changes appended by other processes.
  public var pollInterval: Duration = .milliseconds(250)

  public init(endpoints: [ChangeEndpoint]) {
    self.endpoints = endpoints
  }

  /// When a failed delivery is tried again and when it is given up.
  var schedule: DeliverySchedule {
    DeliverySchedule(initialDelay: initialDelay, maximumDelay: maximumDelay, retryFor: retryFor)
  }
}
