import Foundation

/// How notifications are relayed to the targets: timeouts, retries and leases. The targets
/// themselves are stored (``Relays``), so every server relaying shares them.
public struct RelayConfiguration: Sendable {
  /// How long one POST may take before it counts as failed.
  public var timeout: Duration = .seconds(10)
  /// Deliveries claimed per round and target.
  public var batchSize = 50
  /// POSTs in flight per target.
  public var concurrency = 8
  /// The first retry's delay; each further one doubles it, up to ``maximumDelay``.
  public var initialDelay: Duration = .seconds(10)
  public var maximumDelay: Duration = .seconds(3600)
  /// After this long since the first attempt a delivery is dead-lettered (Apple retries its
  /// own deliveries for about three days too).
  public var retryFor: Duration = .seconds(3 * 86_400)
  /// A claimed delivery another server may take over after this (a crash between sending
  /// and recording sends it again).
  public var lease: Duration = .seconds(60)
  /// Delivered rows older than this leave the queue (their attempts stay in the log).
  public var keepDelivered: Duration = .seconds(30 * 86_400)
  /// How often an idle target looks for notifications appended by other processes.
  public var pollInterval: Duration = .milliseconds(250)
  /// How often the relayer looks for targets added or removed.
  public var targetsInterval: Duration = .seconds(2)

  public init() {}

  /// When a failed delivery is tried again and when it is given up.
  var schedule: DeliverySchedule {
    DeliverySchedule(initialDelay: initialDelay, maximumDelay: maximumDelay, retryFor: retryFor)
  }
}
