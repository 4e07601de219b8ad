import StoreLedgerCore

/// A page of Get Refund History (v2): refunded transactions, oldest refund first.
public struct RefundHistoryResponse: Hashable, Sendable, Codable {
  public var signedTransactions: [String]?
  public var revision: String?
  public var hasMore: Bool?

  public init() {}
}
