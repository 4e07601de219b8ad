import Foundation

/// The app's named API keys (never a key itself: the hash of its secret).
public protocol APIKeyStore: Sendable {
  /// Stores a new key; false (nothing stored) when a key in use has its name.
  func createKey(_ key: APIKeyRecord) async throws(EventStoreError) -> Bool

  /// The key whose public part is `id`, revoked or not.
  func key(id: String) async throws(EventStoreError) -> APIKeyRecord?

  /// Every key, oldest first.
  func keys() async throws(EventStoreError) -> [APIKeyRecord]

  /// Revokes the key named `name` at `time`; false when no key of that name is in use.
  func revokeKey(named name: String, at time: Date) async throws(EventStoreError) -> Bool
}
