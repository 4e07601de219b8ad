import Foundation
import StoreLedgerCore

/// How a ``ConsumptionWorker`` answers refund requests.
public struct ConsumptionWorkerConfiguration: Sendable {
  public var policy: ConsumptionPolicy
  /// How often open requests are looked for when the last pass found none.
  public var pollInterval: Duration
  /// How long a claim holds a request: after it another worker may take over and send the
  /// same answer again. Longer than one call to Apple can take.
  public var lease: Duration
  /// The wait after the first failed attempt, doubled with each further one (with jitter),
  /// up to `maximumBackoff`; Apple's `Retry-After` when it asks for longer.
  public var initialBackoff: Duration
  public var maximumBackoff: Duration
  /// Requests looked at per pass.
  public var batchSize: Int
  /// Names this worker in the claims it writes.
  public var workerId: String
  /// The clock deadlines are judged by (Apple's clock: a simulator's in tests and the demo).
  public var now: @Sendable () -> Date
  /// Runs after Apple accepted an answer and before the acceptance is recorded (tests use it
  /// to stop a worker at the worst moment).
  public var afterSending: (@Sendable (_ requestId: String) async throws -> Void)?

  public init(
    policy: ConsumptionPolicy, pollInterval: Duration = .seconds(2),
    lease: Duration = .seconds(120), initialBackoff: Duration = .seconds(30),
    maximumBackoff: Duration = .seconds(1800), batchSize: Int = 20,
    workerId: String = Self.defaultWorkerId, now: @escaping @Sendable () -> Date = { Date() },
    afterSending: (@Sendable (String) async throws -> Void)? = nil
  ) {
    self.policy = policy
    self.pollInterval = pollInterval
    self.lease = lease
    self.initialBackoff = initialBackoff
    self.maximumBackoff = maximumBackoff
    self.batchSize = max(1, batchSize)
    self.workerId = workerId
    self.now = now
    self.afterSending = afterSending
  }

  /// Host, process and a random suffix: unique among the servers sharing a database.
  public static var defaultWorkerId: String {
    let host = ProcessInfo.processInfo.hostName
    let suffix = UUID().uuidString.prefix(8).lowercased()
    return "\(host):\(ProcessInfo.processInfo.processIdentifier):\(suffix)"
  }
}
