import Logging
import PostgresNIO
import Synchronization

/// One streaming replica that answers reads, and what this process knows of it.
public final class ReadReplica: Sendable {
  /// Its address without credentials (`host:port/database`), for logs and metrics.
  public let name: String
  public let client: PostgresClient

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

  private let state: Mutex<Status>

  public init(name: String, client: PostgresClient) {
    self.name = name
    self.client = client
    self.state = Mutex(
      Status(name: name, inRotation: true, reason: nil, replayed: nil, served: 0, fellBack: 0))
  }

  public var status: Status { state.withLock { $0 } }

  var inRotation: Bool { state.withLock { $0.inRotation } }

  /// True when the replica is known to have replayed `position`.
  func hasReplayed(_ position: WALPosition) -> Bool {
    state.withLock { $0.replayed.map { $0 >= position } ?? false }
  }

  /// Notes a replay position read from the replica (positions only grow while it runs).
  func noteReplayed(_ position: WALPosition) {
    state.withLock { status in
      if status.replayed.map({ $0 < position }) ?? true { status.replayed = position }
    }
  }

  /// Takes the replica out of rotation; true when it was in.
  @discardableResult
  func takeOut(because reason: String) -> Bool {
    state.withLock { status in
      defer {
        status.inRotation = false
        status.reason = reason
        // A replica that went away may come back having replayed less than we saw.
        status.replayed = nil
      }
      return status.inRotation
    }
  }

  /// Puts the replica back; true when it was out.
  @discardableResult
  func putBack() -> Bool {
    state.withLock { status in
      defer {
        status.inRotation = true
        status.reason = nil
      }
      return !status.inRotation
    }
  }

  func count(served: Bool) {
    state.withLock { status in
      if served { status.served += 1 } else { status.fellBack += 1 }
    }
  }
}
