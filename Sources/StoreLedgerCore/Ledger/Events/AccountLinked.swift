/// The backend says an account owns a purchase chain that Apple signed without an
/// `appAccountToken` (offer-code redemptions, purchases made before the app set one).
public struct AccountLinked: Hashable, Sendable, Codable {
  public static let eventType = "ledger.account_linked.v1"

  public var appAccountToken: String
  public var originalTransactionId: String
  public var linkedAt: Timestamp?

  public init(appAccountToken: String, originalTransactionId: String, linkedAt: Timestamp? = nil) {
    self.appAccountToken = AppAccountToken.normalized(appAccountToken)
    self.originalTransactionId = originalTransactionId
    self.linkedAt = linkedAt
  }
}

extension AccountLinked {
  private enum Keys: String, CodingKey { case appAccountToken, originalTransactionId, linkedAt }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    self.init(
      appAccountToken: try container.decode(String.self, forKey: .appAccountToken),
      originalTransactionId: try container.decode(String.self, forKey: .originalTransactionId),
      linkedAt: try container.decodeIfPresent(Timestamp.self, forKey: .linkedAt))
  }
}
