extension LedgerError {
  /// The HTTP status an error answers with, for a server that embeds the library: the one
  /// mapping StoreLedger's own server uses. A refused request is 4xx (what is not signed by
  /// Apple is 401, what the state does not allow 404 or 409); a database or Apple that is away
  /// is 502 or 503, so Apple retries a notification; nothing a caller sends is a 500.
  public var httpStatus: Int {
    switch code {
    case .verificationFailed: 401
    case .invalidPayload, .invalidRequest: 400
    // A conflict with what the ledger holds: its balances, its feed, a purchase's holder.
    case .insufficientBalance, .conflict, .positionBeyondFeed, .notDeveloperHosted,
      .subscriptionNotActive, .purchaseHeldByAnotherAccount, .sharedWithOtherAccounts,
      .accountErased:
      409
    case .erasureNotPermitted: 403
    case .notFound: 404
    // Well formed as the document says, but not to be done as asked: a key reused for
    // another request, a name the catalog does not know, a period that ends before it
    // starts, a cursor the server did not write (any text fits the document's `cursor`).
    case .idempotencyKeyReused, .unknownEntitlement, .rangeReversed, .invalidCursor: 422
    case .databaseUnavailable, .databasePermissionDenied: 503
    case .appleUnavailable: 502
    case .notConfigured: 501
    case .appleRefused:
      // As Apple's own status says: 404 for what Apple does not know, 409 for what the
      // purchase's state does not allow, 422 for what Apple found invalid.
      switch appleErrorCode ?? 0 {
      case 4_040_000..<4_050_000: 404
      case 4_030_000..<4_040_000: 409
      case let code where Self.refusedForTheState.contains(code): 409
      default: 422
      }
    default: 500
    }
  }

  /// Apple's 400-class errors that say what the purchase is, not what the request got wrong:
  /// family-shared, not the original transaction, not a group with developer-hosted seats, no
  /// seat left, the claim released.
  static let refusedForTheState: Set<Int64> = [
    4_000_185, 4_000_187, 4_000_950, 4_000_951, 4_000_952,
  ]
}
