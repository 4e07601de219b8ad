/// Every port the ledger reads and writes through besides its ``EventLog``: one storage
/// offers them all, on one database.
public typealias LedgerPorts = AccountReads & AccountIndex & AccountViewStore & ChangeFeed
  & ChangeDeliveryQueue & RefundRequestIndex & SupportReads & MaintenanceStore
  & RevenueAnalyticsStore & APIKeyStore & AccountErasureStore & RelayQueue & AccountAliasStore
  & ConsoleSignOutStore
