import Foundation
import StoreLedgerCore
import Synchronization

/// Console sign-outs in memory: digests kept until their sessions would have expired.
extension InMemoryLedgerStorage: ConsoleSignOutStore {
  public func recordSignOut(digest: String, expiresAt: Date) async throws(EventStoreError) {
    // Only a SHA-256 of a token is kept, never a token: the table's check, kept here too.
    guard digest.utf8.count == 64,
      digest.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
    else {
      throw EventStoreError(
        .invalidEvent, "a sign-out is kept as the SHA-256 of its token, in 64 lower-case hex digits"
      )
    }
    let now = now()
    state.withLock { state in
      // Expired rows go with each sign-out, as on PostgreSQL.
      state.signOuts = state.signOuts.filter { $0.value >= now }
      if state.signOuts[digest] == nil { state.signOuts[digest] = expiresAt }
    }
  }

  public func isSignedOut(digest: String) async throws(EventStoreError) -> Bool {
    state.withLock { state in state.signOuts[digest] != nil }
  }
}
