/// The backend says an account owns a purchase chain that Apple signed without an
/// `appAccountToken` (offer-code redemptions, purchases made before the app set one).
public struct AccountLinked: Hashable, Sendable, Codable {
  public static let eventType = "ledger.account_linked.v1"

  public var appAccountToken: String
  public var originalTransactionId: String
  public var linkedAt: Timestamp?

  public init(appAccountToken: String, originalTransactionId: String, linkedAt: Timestamp? = nil) {
    self.appAccountToken = appAccountToken
    self.originalTransactionId = originalTransactionId
    self.linkedAt = linkedAt
  }
}
