import Crypto
import Foundation
import StoreLedger
import Synchronization

/// The console's signed-in sessions, as signed tokens: `<expiry>.<nonce>.<key>.<mac>` (the key
/// the session was opened with: `configured` or a named key's public id), the MAC an
/// HMAC-SHA256 under a key derived from the server's API keys. Nothing is kept per open
/// session, so a session outlives a restart and every server with the same keys accepts it;
/// changing the keys signs everyone out. A sign-out is recorded in the database
/// (``ConsoleSignOuts``) and ends the session on every server; this server also remembers it
/// itself. Without configured keys the MAC key is random, made when the server starts: no one
/// can make a token from what is public (a named key's id). The API key itself is never
/// kept.
final class ConsoleSessions: Sendable {
  static let cookie = "storeledger_console"
  let lifetime: Duration
  private let key: SymmetricKey
  /// Tokens signed out here, by their expiry (dropped once expired).
  private let closed = Mutex([String: Int64]())

  init(apiKeys: Set<String>, lifetime: Duration = .seconds(8 * 3600)) {
    self.lifetime = lifetime
    guard !apiKeys.isEmpty else {
      key = SymmetricKey(size: .bits256)
      return
    }
    var material = Data("storeledger console sessions v1".utf8)
    for apiKey in apiKeys.sorted() {
      material.append(0)
      material.append(contentsOf: Array(apiKey.utf8))
    }
    key = SymmetricKey(data: SHA256.hash(data: material))
  }

  /// When the session of `token` expires, while it is open here.
  func expiry(of token: String, now: Date = Date()) -> Date? {
    guard isOpen(token, now: now), let seconds = Int64(token.prefix { $0 != "." }) else {
      return nil
    }
    return Date(timeIntervalSince1970: TimeInterval(seconds))
  }

  /// A new session's token for the key `keyReference`, valid for `lifetime` from `now`.
  func open(keyReference: String, now: Date = Date()) -> String {
    var generator = SystemRandomNumberGenerator()
    let nonce = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let expiry = Int64(now.timeIntervalSince1970) + lifetime.components.seconds
    let body = "\(expiry).\(Hex.encode(nonce)).\(keyReference)"
    return body + "." + mac(body)
  }

  /// The key the session was opened with, while it is open; nil otherwise.
  func keyReference(_ token: String, now: Date = Date()) -> String? {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 4, let expiry = Int64(parts[0]), parts[1].count == 32,
      !parts[2].isEmpty, expiry > Int64(now.timeIntervalSince1970)
    else { return nil }
    let body = "\(parts[0]).\(parts[1]).\(parts[2])"
    guard
      let given = Hex.decode(parts[3]), given.count == 32,
      HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: Data(body.utf8), using: key)
    else { return nil }
    return closed.withLock { $0[token] == nil } ? String(parts[2]) : nil
  }

  func isOpen(_ token: String, now: Date = Date()) -> Bool {
    keyReference(token, now: now) != nil
  }

  func close(_ token: String, now: Date = Date()) {
    guard isOpen(token, now: now), let expiry = Int64(token.prefix { $0 != "." }) else { return }
    let seconds = Int64(now.timeIntervalSince1970)
    closed.withLock { closed in
      if closed.count > 10_000 { closed = closed.filter { $0.value > seconds } }
      closed[token] = expiry
    }
  }

  private func mac(_ body: String) -> String {
    Hex.encode(Array(HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: key)))
  }
}
