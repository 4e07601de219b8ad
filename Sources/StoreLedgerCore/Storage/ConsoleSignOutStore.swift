import Foundation

/// Console sessions signed out before they expired, shared by every server of the database: a
/// session is a signed token that any server with the same keys accepts, so signing out has to
/// be known to all of them, and to a server started afterwards. Only a digest of each token is
/// kept, never the token.
public protocol ConsoleSignOutStore: Sendable {
  /// Records that the session whose token has `digest` ended; kept until `expiresAt`, when
  /// the token would be refused anyway.
  func recordSignOut(digest: String, expiresAt: Date) async throws(EventStoreError)

  /// Whether the session whose token has `digest` was signed out.
  func isSignedOut(digest: String) async throws(EventStoreError) -> Bool
}
