import Logging
import PostgresNIO
import Synchronization

/// One streaming replica that answers reads, and what this process knows of it.
public final class ReadReplica: Sendable {
  /// Its address without credentials (`host:port/database`), for logs and metrics.
  public let name: String
  /// Its hosts: one, or several of which the standby answers.
  public let hosts: DatabaseHosts
  /// The pool reads go to.
  public var client: PostgresClient { hosts.current }

  /// What an operator sees of a replica.
  public struct Status: Sendable, Hashable {
    public var name: String
    /// Answers reads now; out while unreachable, not a standby, or too far behind.
    public var inRotation: Bool
    /// Why it is out of rotation.
    public var reason: String?
    /// The newest WAL position it was seen to have replayed.
    public var replayed: WALPosition?
    /// Reads it answered, and reads sent to it that the primary answered instead.
    public var served: Int
    public var fellBack: Int
  }

  private struct State {
    var status: Status
    /// When `status.replayed` was read from the replica.
    var observedAt: ContinuousClock.Instant?
  }

  /// How long a replay position read from the replica is trusted without asking again: a
  /// replica that restarted after a crash may have replayed less than it had before.
  static let trustedFor = Duration.seconds(1)

  private let state: Mutex<State>

  public convenience init(name: String, client: PostgresClient) {
    self.init(name: name, hosts: DatabaseHosts(client: client, logger: Logger(label: "replica")))
  }

  public init(name: String, hosts: DatabaseHosts) {
    self.name = name
    self.hosts = hosts
    self.state = Mutex(
      State(
        status: Status(
          name: name, inRotation: true, reason: nil, replayed: nil, served: 0, fellBack: 0)))
  }

  public var status: Status { state.withLock { $0.status } }

  var inRotation: Bool { state.withLock { $0.status.inRotation } }

  /// True when the replica was seen, within ``trustedFor``, to have replayed `position`.
  func hasReplayed(_ position: WALPosition) -> Bool {
    state.withLock { state in
      guard let replayed = state.status.replayed, let observedAt = state.observedAt,
        ContinuousClock.now - observedAt < Self.trustedFor
      else { return false }
      return replayed >= position
    }
  }

  /// Notes the replay position just read from the replica: the newest reading wins, even when
  /// lower (a restarted replica), so the position is never believed higher than it is.
  func noteReplayed(_ position: WALPosition) {
    state.withLock { state in
      state.status.replayed = position
      state.observedAt = .now
    }
  }

  /// Takes the replica out of rotation; true when it was in.
  @discardableResult
  func takeOut(because reason: String) -> Bool {
    state.withLock { state in
      defer {
        state.status.inRotation = false
        state.status.reason = reason
        state.status.replayed = nil
        state.observedAt = nil
      }
      return state.status.inRotation
    }
  }

  /// Puts the replica back; true when it was out.
  @discardableResult
  func putBack() -> Bool {
    state.withLock { state in
      defer {
        state.status.inRotation = true
        state.status.reason = nil
      }
      return !state.status.inRotation
    }
  }

  func count(served: Bool) {
    state.withLock { state in
      if served { state.status.served += 1 } else { state.status.fellBack += 1 }
    }
  }
}
