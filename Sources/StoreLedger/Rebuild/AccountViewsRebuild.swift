import Foundation

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
  public var seconds: Double
}

/// One version of the account views table.
public struct AccountViewsVersion: Sendable, Hashable, Codable {
  public var version: Int
  /// `building`, `live`, `retired` (kept for comparison), `dropped` or `abandoned`.
  public var state: String
  public var projection: String?
  public var accounts: Int?
  public var createdAt: Date
  public var switchedAt: Date?
  public var retiredAt: Date?
}

/// An account whose view differs between the live table and a retired version.
public struct AccountViewDifference: Sendable, Hashable, Codable {
  public var appAccountToken: String
  /// The views as JSON text; nil where the table has no view for the account.
  public var live: String?
  public var retired: String?
}

/// How far a rebuild has got, for progress bars.
public struct RebuildProgress: Sendable, Hashable {
  public var accounts: Int
  public var totalAccounts: Int
  public var events: Int
}
