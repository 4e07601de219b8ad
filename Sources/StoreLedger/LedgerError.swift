import StoreLedgerCore

/// Why a ledger operation did not happen. Nothing was stored when one is thrown.
///
/// `code` is stable; `message` never contains payloads, tokens or keys.
public struct LedgerError: Error, Sendable, CustomStringConvertible {
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The signature, chain or identity did not verify (see `verificationCode`).
    public static let verificationFailed = Code(rawValue: "verification_failed")
    /// The data verified but cannot become an event (no ids, wrong kind).
    public static let invalidPayload = Code(rawValue: "invalid_payload")
    /// A request's own fields are wrong (empty token, non-positive quantity, …).
    public static let invalidRequest = Code(rawValue: "invalid_request")
    /// A debit would take the balance below zero.
    public static let insufficientBalance = Code(rawValue: "insufficient_balance")
    /// The database could not be reached or failed; retry later.
    public static let databaseUnavailable = Code(rawValue: "database_unavailable")
    /// The database refused the operation.
    public static let databaseRejected = Code(rawValue: "database_rejected")
    /// The thing asked about (a refund request, an order) is not known.
    public static let notFound = Code(rawValue: "not_found")
    /// The request is in a state that does not allow it (answered, claimed elsewhere).
    public static let conflict = Code(rawValue: "conflict")
    /// Apple refused the call for good (see `appleErrorCode`).
    public static let appleRefused = Code(rawValue: "apple_refused")
    /// Apple could not be reached or kept failing; try again later.
    public static let appleUnavailable = Code(rawValue: "apple_unavailable")
    /// The call needs App Store Server API credentials, and none are configured.
    public static let notConfigured = Code(rawValue: "not_configured")
    /// A change feed position after the newest change.
    public static let positionBeyondFeed = Code(rawValue: "position_beyond_feed")
    /// A seat of a subscription that is not a group with developer-hosted invitations.
    public static let notDeveloperHosted = Code(rawValue: "not_developer_hosted")
    /// A seat of a subscription that is not active.
    public static let subscriptionNotActive = Code(rawValue: "subscription_not_active")
    /// A link of a purchase that another account holds, without asking for a transfer.
    public static let purchaseHeldByAnotherAccount = Code(
      rawValue: "purchase_held_by_another_account")
    /// An idempotency key used before, on the same account and route, for a different request.
    public static let idempotencyKeyReused = Code(rawValue: "idempotency_key_reused")

    /// An erasure would remove rows other accounts hold too; erase them together.
    public static let sharedWithOtherAccounts = Code(rawValue: "shared_with_other_accounts")
    /// The account was erased with its later data quarantined: what is written for it would
    /// be stored attached to no account, so it is refused instead.
    public static let accountErased = Code(rawValue: "account_erased")
    /// The database role may not erase: erasure runs as the owner role.
    public static let erasureNotPermitted = Code(rawValue: "erasure_not_permitted")

    /// A page cursor that was changed, cut short, or belongs to another list or filters.
    public static let invalidCursor = Code(rawValue: "invalid_cursor")

    /// A grant names an entitlement no product of the catalog grants (and is not forced).
    public static let unknownEntitlement = Code(rawValue: "unknown_entitlement")

    /// A period or range that ends before, or when, it starts (a grant's `endsAt`).
    public static let rangeReversed = Code(rawValue: "range_reversed")

    /// The database role may not do what was asked (SQLSTATE 42501): the schema belongs to
    /// the owner role, which `migrate` uses; the writer serves.
    public static let databasePermissionDenied = Code(rawValue: "database_permission_denied")

    /// Every code, for documents that list them (the HTTP API's).
    public static let all: [Code] = [
      .verificationFailed, .invalidPayload, .invalidRequest, .insufficientBalance,
      .databaseUnavailable, .databaseRejected, .notFound, .conflict, .appleRefused,
      .appleUnavailable, .notConfigured, .positionBeyondFeed, .notDeveloperHosted,
      .subscriptionNotActive, .purchaseHeldByAnotherAccount, .idempotencyKeyReused,
      .databasePermissionDenied, .sharedWithOtherAccounts, .erasureNotPermitted, .invalidCursor,
      .accountErased, .unknownEntitlement, .rangeReversed,
    ]
  }

  public let code: Code
  public let message: String
  /// The verifier's code, for `verificationFailed`.
  public let verificationCode: String?
  /// Apple's `errorCode`, for `appleRefused` (and `appleUnavailable` when Apple sent one).
  public let appleErrorCode: Int64?

  public init(
    _ code: Code, _ message: String, verificationCode: String? = nil, appleErrorCode: Int64? = nil
  ) {
    self.code = code
    self.message = message
    self.verificationCode = verificationCode
    self.appleErrorCode = appleErrorCode
  }

  public var description: String {
    if let appleErrorCode { return "\(code) (Apple errorCode \(appleErrorCode)): \(message)" }
    return verificationCode.map { "\(code) (\($0)): \(message)" } ?? "\(code): \(message)"
  }
}

extension LedgerError {
  /// A decision's events, or its rejection as the ledger's error.
  static func decided(_ decision: Result<[LedgerEvent.Body], CommandRejection>)
    throws(LedgerError) -> [LedgerEvent.Body]
  {
    switch decision {
    case .success(let events): return events
    case .failure(let rejection) where rejection.code == .insufficientBalance:
      throw LedgerError(.insufficientBalance, rejection.message)
    case .failure(let rejection) where rejection.code == .idempotencyKeyReused:
      throw LedgerError(.idempotencyKeyReused, rejection.message)
    case .failure(let rejection) where rejection.code == .unknownGrant:
      throw LedgerError(.notFound, rejection.message)
    case .failure(let rejection) where rejection.code == .unknownEntitlement:
      throw LedgerError(.unknownEntitlement, rejection.message)
    case .failure(let rejection) where rejection.code == .rangeReversed:
      throw LedgerError(.rangeReversed, rejection.message)
    case .failure(let rejection): throw LedgerError(.invalidRequest, rejection.message)
    }
  }
}
