import Crypto
import Foundation
import StoreLedgerCore

/// The app's named API keys: made (the key is shown once and never stored, only the SHA-256
/// of its secret), listed, revoked, and checked. A key reads `slk_<16 hex>_<43 base64url>`:
/// the first part finds the record, the second is compared by hash in constant time.
public struct APIKeys: Sendable {
  let store: any APIKeyStore
  let calls: StorageCalls

  /// Makes a key named `name` with `scopes`; returns the key (shown once) and its record.
  public func create(name: String, scopes: Set<APIKeyScope>, now: Date = Date())
    async throws(LedgerError) -> (key: String, record: APIKeyRecord)
  {
    guard APIKeyRecord.isValidName(name) else {
      throw LedgerError(
        .invalidRequest, "a key's name is 1 to 64 letters, digits, '.', '_' or '-'")
    }
    guard !scopes.isEmpty else {
      throw LedgerError(
        .invalidRequest, "give a key at least one scope: read, write, console, admin")
    }
    var generator = SystemRandomNumberGenerator()
    let id = (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator))
    }
    .joined()
    let secret = Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
      .base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    let record = APIKeyRecord(
      id: id, name: name, scopes: scopes, secretHash: Self.hash(secret), createdAt: now)
    let stored = try await calls.run { [store] in try await store.createKey(record) }
    guard stored else {
      throw LedgerError(
        .conflict, "a key named \(name) is in use: revoke it first or choose another name")
    }
    return ("slk_\(id)_\(secret)", record)
  }

  /// Every key, oldest first (revoked ones too, with when).
  public func list() async throws(LedgerError) -> [APIKeyRecord] {
    try await calls.run { [store] in try await store.keys() }
  }

  /// Revokes the key named `name`: it stops working at once.
  public func revoke(name: String, now: Date = Date()) async throws(LedgerError) {
    let revoked = try await calls.run { [store] in
      try await store.revokeKey(named: name, at: now)
    }
    guard revoked else {
      throw LedgerError(.notFound, "no key named \(name) is in use (storeledger keys list)")
    }
  }

  /// What `presented` may do; nil when it is not a key in use (malformed, unknown, revoked or
  /// with another secret).
  public func grant(for presented: String) async throws(LedgerError) -> APIKeyGrant? {
    guard let (id, secret) = Self.parts(of: presented) else { return nil }
    guard let record = try await calls.run({ [store] in try await store.key(id: id) }),
      record.revokedAt == nil, Self.equal(record.secretHash, Self.hash(secret))
    else { return nil }
    return APIKeyGrant(name: record.name, scopes: record.scopes, keyId: record.id)
  }

  /// The grant of the key in use whose public part is `id` (a console session's key).
  public func grant(id: String) async throws(LedgerError) -> APIKeyGrant? {
    guard let record = try await calls.run({ [store] in try await store.key(id: id) }),
      record.revokedAt == nil
    else { return nil }
    return APIKeyGrant(name: record.name, scopes: record.scopes, keyId: record.id)
  }

  /// The id and secret of a well-formed key.
  static func parts(of presented: String) -> (String, String)? {
    let parts = presented.split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0] == "slk", parts[1].count == 16,
      parts[1].allSatisfy({ $0.isHexDigit && !$0.isUppercase }), parts[2].count == 43,
      parts[2].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
    else { return nil }
    return (String(parts[1]), String(parts[2]))
  }

  static func hash(_ secret: String) -> [UInt8] { Array(SHA256.hash(data: Data(secret.utf8))) }

  /// Compares in time independent of where the bytes differ.
  static func equal(_ left: [UInt8], _ right: [UInt8]) -> Bool {
    guard left.count == right.count else { return false }
    var difference: UInt8 = 0
    for (a, b) in zip(left, right) { difference |= a ^ b }
    return difference == 0
  }
}
