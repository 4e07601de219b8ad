/// What becomes of data that names an erased account after its erasure: Apple keeps sending
/// notifications about a subscription until it ends, and a verified notification is never
/// refused.
public enum LaterDataRule: String, Sendable, Hashable, CaseIterable, Codable {
  /// Stored in the log and attached to no account: the token is retired, its later rows are
  /// found by transaction id (support) and come back only through a link to a new token.
  case quarantine
  /// Stored and indexed as any new data: the account starts again from what arrives.
  case attach
}
