import NIOCore
import PostgresNIO
import Synchronization

/// Tells statements that a connection closed, with one close callback per connection.
///
/// A callback per statement on `closeFuture` would stay queued for the connection's whole life
/// (a future runs its callbacks only when it completes): a long-lived pool connection would
/// collect one closure per statement it ever ran.
final class ConnectionCloseWatch: Sendable {
  static let shared = ConnectionCloseWatch()

  private struct Watched {
    weak var connection: PostgresConnection?
    var waiters: [UInt64: @Sendable () -> Void] = [:]
  }

  private struct State {
    var watched: [ObjectIdentifier: Watched] = [:]
    var nextToken: UInt64 = 0
  }

  private let state = Mutex(State())

  /// Calls `onClose` if `connection` closes before ``stop(_:on:)`` is called with the token.
  func watch(_ connection: PostgresConnection, onClose: @escaping @Sendable () -> Void) -> UInt64 {
    let id = ObjectIdentifier(connection)
    let (token, isNew) = state.withLock { state in
      state.nextToken += 1
      // A stale entry (a closed connection whose address was reused) is replaced.
      let isNew = state.watched[id]?.connection !== connection
      if isNew { state.watched[id] = Watched(connection: connection) }
      state.watched[id]?.waiters[state.nextToken] = onClose
      return (state.nextToken, isNew)
    }
    if isNew {
      connection.closeFuture.whenComplete { [self] _ in closed(id, connection: connection) }
    }
    return token
  }

  func stop(_ token: UInt64, on connection: PostgresConnection) {
    _ = state.withLock {
      $0.watched[ObjectIdentifier(connection)]?.waiters.removeValue(forKey: token)
    }
  }

  /// Statements still watched on `connection` (for tests).
  func waiterCount(on connection: PostgresConnection) -> Int {
    state.withLock { $0.watched[ObjectIdentifier(connection)]?.waiters.count ?? 0 }
  }

  private func closed(_ id: ObjectIdentifier, connection: PostgresConnection) {
    let waiters = state.withLock { state -> [@Sendable () -> Void] in
      guard state.watched[id]?.connection === connection else { return [] }
      return Array(state.watched.removeValue(forKey: id)?.waiters.values ?? [:].values)
    }
    for waiter in waiters { waiter() }
  }
}
