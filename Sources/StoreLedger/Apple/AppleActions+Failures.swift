import AppStoreServerAPI
import StoreLedgerCore

extension AppleActions {
  /// A failed App Store Server API call in words, for tools.
  public static func describe(_ error: any Error, doing what: String) -> String {
    LedgerError.apple(error, doing: what).description
  }
}
