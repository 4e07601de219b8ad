import Foundation

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
