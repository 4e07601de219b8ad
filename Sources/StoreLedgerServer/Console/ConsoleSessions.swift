import Foundation
import Synchronization

/// The console's signed-in sessions: a random token (the cookie's value) and when it expires.
/// In memory: a restart signs everyone out. The API key itself is never kept.
final class ConsoleSessions: Sendable {
  static let cookie = "storeledger_console"
  let lifetime: Duration
  private let sessions = Mutex([String: ContinuousClock.Instant]())

  init(lifetime: Duration = .seconds(8 * 3600)) {
    self.lifetime = lifetime
  }

  /// A new session's token: 32 random bytes, hex.
  func open() -> String {
    var generator = SystemRandomNumberGenerator()
    let token = (0..<32).map { _ in
      String(format: "%02x", UInt8.random(in: 0...255, using: &generator))
    }
    .joined()
    let now = ContinuousClock.now
    sessions.withLock { sessions in
      if sessions.count > 10_000 { sessions = sessions.filter { $0.value > now } }
      sessions[token] = now + lifetime
    }
    return token
  }

  func isOpen(_ token: String) -> Bool {
    sessions.withLock { sessions in
      guard let expiry = sessions[token] else { return false }
      guard expiry > .now else {
        sessions[token] = nil
        return false
      }
      return true
    }
  }

  func close(_ token: String) {
    sessions.withLock { _ = $0.removeValue(forKey: token) }
  }
}
