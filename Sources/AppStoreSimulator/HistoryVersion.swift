import StoreLedgerCore

/// The two versions of Get Transaction History. Version 1 (`/inApps/v1/history`, deprecated
/// in API 1.12 but still the default of Apple's libraries) leaves out consumables the app
/// finished: it lists a consumable only while it is unfinished or once it is revoked.
/// Version 2 lists every transaction. The simulated apps finish every consumable they
/// deliver, as StoreKit asks, so version 1 lists a consumable only once it is revoked.
public enum HistoryVersion: Sendable {
  case v1, v2

  func lists(_ transaction: JWSTransactionDecodedPayload) -> Bool {
    switch self {
    case .v2: true
    case .v1: transaction.type != .consumable || transaction.revocationDate != nil
    }
  }
}
