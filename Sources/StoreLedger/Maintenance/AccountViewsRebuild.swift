import Foundation
import StoreLedgerCore

/// What a rebuild of the account views did.
public struct AccountViewsRebuild: Sendable, Hashable, Codable {
  /// The version now live (`storeledger.account_views`).
  public var version: Int
  /// The version it replaced, kept as `storeledger.account_views_v<N>` until dropped.
  public var replacedVersion: Int?
  public var accounts: Int
  /// Events folded from the log.
  public var events: Int
  /// Accounts appended to while the rebuild ran, projected again after the switch.
  public var projectedAfterSwitch: Int
  /// Unrouted notifications read again first (``LedgerMaintenance/reexamineUnrouted()``).
  public var unrouted: LedgerMaintenance.Reexamination = .init()
  public var seconds: Double
}

/// A version of the account views table (schema/0010).
public typealias AccountViewsVersion = StoreLedgerCore.AccountViewsVersion
/// An account whose view differs between the live table and a retired version.
public typealias AccountViewDifference = StoreLedgerCore.AccountViewDifference

/// How far a rebuild has got, for progress bars.
public struct RebuildProgress: Sendable, Hashable {
  public var accounts: Int
  public var totalAccounts: Int
  public var events: Int
}
