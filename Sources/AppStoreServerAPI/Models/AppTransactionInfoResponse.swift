import StoreLedgerCore

/// Get App Transaction Info.
public struct AppTransactionInfoResponse: Hashable, Sendable, Codable {
  public var signedAppTransactionInfo: String?

  public init() {}
}
