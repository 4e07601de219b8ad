import Crypto
import Foundation
import HTTPTypes
import NIOCore
import StoreLedger
import StoreLedgerCore
import Synchronization

/// Who a bearer key is: one of the configured keys (every scope) or a named key of the app
/// (its scopes). A named key's answer is remembered for a second, so a busy client costs one
/// lookup a second and a revoked key stops working within a second. Keys are compared in
/// constant time and never logged or kept (the memory is keyed by a hash).
final class APIKeyRing: Sendable {
  let configured: Set<String>
  let keys: APIKeys?
  /// Failed presentations and the named keys they lock (none: nothing is throttled).
  let throttle: AuthenticationThrottle?
  /// Who a request comes from, as the throttle counts it.
  let clients: ClientAddress
  private let remembered = Mutex([String: (grant: APIKeyGrant?, until: ContinuousClock.Instant)]())
  static let memory = Duration.seconds(1)

  init(
    configured: Set<String>, keys: APIKeys?, throttle: AuthenticationThrottle? = nil,
    clients: ClientAddress = ClientAddress(trustedProxies: [])
  ) {
    self.configured = configured
    self.keys = keys
    self.throttle = throttle
    self.clients = clients
  }

  /// What `presented` may do, for a request from `peer` with `headers` (the client address
  /// they name, ``ClientAddress``).
  func grant(
    for presented: String, peer: SocketAddress?, headers: HTTPFields
  ) async throws -> APIKeyGrant? {
    try await grant(for: presented, address: { clients.subject(peer: peer, headers: headers) })
  }

  /// What `presented` may do, from the client `address` (``ClientAddress``; nil when none is
  /// known); nil when it is no key. A named key or an address locked by repeated failures is
  /// refused (``APIError/locked(_:retryAfter:)``) before the key is checked.
  func grant(for presented: String, from address: String? = nil) async throws -> APIKeyGrant? {
    try await grant(for: presented, address: { address })
  }

  /// `address` is worked out only when the throttle needs it: while nothing is locked, a
  /// right key costs no parsing of the peer or of `X-Forwarded-For`.
  private func grant(for presented: String, address: () -> String?) async throws
    -> APIKeyGrant?
  {
    if let throttle, throttle.holdsLocks {
      if let address = address(), let wait = throttle.lockedFor(address) {
        throw APIError.locked(.address, retryAfter: wait)
      }
      if let wait = throttle.lockedFor(AuthenticationThrottle.subject(of: presented)) {
        throw APIError.locked(.namedKey, retryAfter: wait)
      }
    }
    let grant = try await check(presented)
    if grant == nil, let throttle {
      throttle.failed(AuthenticationThrottle.subject(of: presented))
      if let address = address() { throttle.failed(address) }
    }
    return grant
  }

  private func check(_ presented: String) async throws -> APIKeyGrant? {
    if Self.isKnown(Array(presented.utf8), among: configured) { return .configured }
    guard let keys, presented.hasPrefix("slk_") else { return nil }
    let reference = Self.reference(presented)
    let now = ContinuousClock.now
    if let found = remembered.withLock({ $0[reference] }), found.until > now { return found.grant }
    let grant = try await keys.grant(for: presented)
    remembered.withLock { memory in
      if memory.count > 10_000 { memory = memory.filter { $0.value.until > now } }
      memory[reference] = (grant, now + Self.memory)
    }
    return grant
  }

  /// The grant of a console session's key: `configured`, or a named key's id.
  func grant(session keyReference: String) async throws -> APIKeyGrant? {
    if keyReference == "configured" { return configured.isEmpty ? nil : .configured }
    guard let keys else { return nil }
    let reference = "id:" + keyReference
    let now = ContinuousClock.now
    if let found = remembered.withLock({ $0[reference] }), found.until > now { return found.grant }
    let grant = try await keys.grant(id: keyReference)
    remembered.withLock { $0[reference] = (grant, now + Self.memory) }
    return grant
  }

  private static func reference(_ presented: String) -> String {
    SHA256.hash(data: Data(presented.utf8)).map { String(format: "%02x", $0) }.joined()
  }

  /// Whether `presented` is one of `keys`, compared in constant time per key.
  static func isKnown(_ presented: [UInt8], among keys: Set<String>) -> Bool {
    var known = false
    for key in keys {
      let expected = Array(key.utf8)
      guard expected.count == presented.count else { continue }
      var difference: UInt8 = 0
      for (left, right) in zip(expected, presented) { difference |= left ^ right }
      if difference == 0 { known = true }
    }
    return known
  }
}
