import StoreLedgerCore

extension AppAccountToken {
  /// The canonical (lower-case) form of a token the caller supplies; refused with
  /// `invalid_request` when it is not a UUID, before anything is read or written.
  static func checked(_ appAccountToken: String) throws(LedgerError) -> String {
    guard let token = canonical(appAccountToken) else {
      throw LedgerError(
        .invalidRequest, "an appAccountToken is a UUID, such as \(example) (any case)")
    }
    return token
  }
}
