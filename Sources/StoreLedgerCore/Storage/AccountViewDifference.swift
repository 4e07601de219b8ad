import Foundation

/// An account whose view differs between the live table and a retired version.
public struct AccountViewDifference: Sendable, Hashable, Codable {
  public var appAccountToken: String
  /// The views as JSON text; nil where the table has no view for the account.
  public var live: String?
  public var retired: String?

  package init(appAccountToken: String, live: String?, retired: String?) {
    self.appAccountToken = appAccountToken
    self.live = live
    self.retired = retired
  }
}
