import Foundation

/// An erasure as asked: the accounts whose personal data leaves the log, who asked, why, and
/// the rule for data that names them later. Who and why are kept in the log: they must not
/// hold the customer's personal data.
public struct ErasureRequest: Sendable, Hashable {
  /// The accounts' appAccountTokens; accounts that share purchases are erased together.
  public let appAccountTokens: [String]
  public let erasureId: UUID
  public let requestedBy: String
  public let reason: String
  public let later: LaterDataRule

  public init(
    appAccountTokens: [String], erasureId: UUID = UUID(), requestedBy: String, reason: String,
    later: LaterDataRule = .quarantine
  ) {
    self.appAccountTokens = appAccountTokens
    self.erasureId = erasureId
    self.requestedBy = requestedBy
    self.reason = reason
    self.later = later
  }
}
