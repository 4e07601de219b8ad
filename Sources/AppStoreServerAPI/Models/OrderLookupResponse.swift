import StoreLedgerCore

/// Look Up Order ID.
public struct OrderLookupResponse: Hashable, Sendable, Codable {
  public var status: OrderLookupStatus?
  public var signedTransactions: [String]?

  public init() {}
}
