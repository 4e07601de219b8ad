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
  }

  public let code: Code
  public let message: String
  /// The verifier's code, for `verificationFailed`.
  public let verificationCode: String?

  public init(_ code: Code, _ message: String, verificationCode: String? = nil) {
    self.code = code
    self.message = message
    self.verificationCode = verificationCode
  }

  public var description: String {
    verificationCode.map { "\(code) (\($0)): \(message)" } ?? "\(code): \(message)"
  }
}
