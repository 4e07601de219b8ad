import Crypto
import Foundation
import StoreLedgerCore

/// Console sessions signed out, known to every server of the storage (``ConsoleSignOutStore``)
/// and kept until the session would have expired. Only the SHA-256 of a session's token is
/// stored.
public struct ConsoleSignOuts: Sendable {
  let store: any ConsoleSignOutStore
  let calls: StorageCalls

  /// Records that the session of `token`, valid until `expiresAt`, ended.
  public func record(_ token: String, expiresAt: Date) async throws(LedgerError) {
    let digest = Self.digest(token)
    try await calls.run { try await store.recordSignOut(digest: digest, expiresAt: expiresAt) }
  }

  /// Whether the session of `token` was signed out on any server.
  public func isSignedOut(_ token: String) async throws(LedgerError) -> Bool {
    let digest = Self.digest(token)
    return try await calls.run { try await store.isSignedOut(digest: digest) }
  }

  static func digest(_ token: String) -> String {
    SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
  }
}
