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

  package init(
    version: Int, state: String, projection: String?, accounts: Int?, createdAt: Date,
    switchedAt: Date?, retiredAt: Date?
  ) {
    self.version = version
    self.state = state
    self.projection = projection
    self.accounts = accounts
    self.createdAt = createdAt
    self.switchedAt = switchedAt
    self.retiredAt = retiredAt
  }
}
