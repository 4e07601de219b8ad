import Foundation

/// The refusals of an erasure, whichever storage erases: each changes nothing.
extension EventStoreError {
  /// A token the log holds nothing of and no erasure removed.
  public static func unknownAccountToErase(sqlState: String? = nil) -> EventStoreError {
    EventStoreError(
      .unknownAccount,
      "no account with this appAccountToken is in the log, and no erasure removed one",
      sqlState: sqlState)
  }

  /// Purchases (or rows naming the account) that other accounts hold too.
  public static func sharedAccountData(
    streams: String, accounts: String, sqlState: String? = nil
  ) -> EventStoreError {
    EventStoreError(
      .sharedAccountData,
      "\(streams) stream(s) of this account are also held by \(accounts) other "
        + "account(s): erase those accounts in the same erasure, or look the purchases up "
        + "(storeledger support) before erasing; nothing was erased", sqlState: sqlState)
  }

  /// A request without tokens, reason or requester.
  public static func incompleteErasure(sqlState: String? = nil) -> EventStoreError {
    EventStoreError(
      .invalidEvent,
      "an erasure needs at least one appAccountToken, a reason, who asked, and a rule for "
        + "later data (quarantine or attach)", sqlState: sqlState)
  }
}
