import StoreLedgerCore

/// A page of Get Transaction History (v2): at most 20 signed transactions.
public struct HistoryResponse: Hashable, Sendable, Codable {
  /// The token for the next page, and for later incremental syncs.
  public var revision: String?
  public var hasMore: Bool?
  public var bundleId: String?
  public var appAppleId: Int64?
  public var environment: AppStoreEnvironment?
  /// JWS that decode to `JWSTransactionDecodedPayload`.
  public var signedTransactions: [String]?

  public init() {}
}
