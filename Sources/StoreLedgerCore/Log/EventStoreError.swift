/// Why an event-store operation did not happen. Nothing was written when one is thrown.
///
/// `code` is stable; `message` never contains payloads, keys or credentials.
public struct EventStoreError: Error, Sendable, CustomStringConvertible {
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
      self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The stream is not at the version the append expected.
    public static let wrongExpectedVersion = Code(rawValue: "wrong_expected_version")
    /// An idempotency key is already used by an event of another stream.
    public static let idempotencyKeyInOtherStream = Code(
      rawValue: "idempotency_key_in_other_stream")
    /// An event is not well formed (invalid JSON, bad event type, empty key, …).
    public static let invalidEvent = Code(rawValue: "invalid_event")
    /// A checkpoint was not where the caller expected (another consumer moved it).
    public static let checkpointConflict = Code(rawValue: "checkpoint_conflict")
    /// An applied migration's SQL differs from the one recorded.
    public static let migrationChanged = Code(rawValue: "migration_changed")
    /// The database could not be reached or failed; retry later.
    public static let databaseUnavailable = Code(rawValue: "database_unavailable")
    /// The database refused the operation (privileges, constraints, immutability).
    public static let databaseRejected = Code(rawValue: "database_rejected")
    public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
    /// A stored row's payload or claims do not read as its event type says.
    public static let unreadableEvent = Code(rawValue: "unreadable_event")
    /// The database refused to switch to or drop a version of the account views (one that
    /// does not exist, or the live one).
    public static let viewsVersionRefused = Code(rawValue: "views_version_refused")
    /// The caller's in-transaction hook threw; the append was rolled back.
    public static let hookFailed = Code(rawValue: "hook_failed")
    /// An erasure named an account the log holds nothing of and no erasure removed.
    public static let unknownAccount = Code(rawValue: "unknown_account")
    /// An erasure would remove rows another account holds too.
    public static let sharedAccountData = Code(rawValue: "shared_account_data")
  }

  public let code: Code
  public let message: String
  /// The SQLSTATE, when PostgreSQL reported one.
  public let sqlState: String?
  /// The hook's own error, for `hookFailed`.
  public let underlying: (any Error & Sendable)?

  public init(
    _ code: Code, _ message: String, sqlState: String? = nil,
    underlying: (any Error & Sendable)? = nil
  ) {
    self.code = code
    self.message = message
    self.sqlState = sqlState
    self.underlying = underlying
  }

  public var description: String {
    sqlState.map { "\(code): \(message) (SQLSTATE \($0))" } ?? "\(code): \(message)"
  }
}
