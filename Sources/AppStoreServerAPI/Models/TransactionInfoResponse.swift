import StoreLedgerCore

/// Get Transaction Info.
public struct TransactionInfoResponse: Hashable, Sendable, Codable {
  public var signedTransactionInfo: String?

  public init() {}
}
