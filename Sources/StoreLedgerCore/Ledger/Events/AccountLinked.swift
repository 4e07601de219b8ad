/// The backend says an account owns a purchase chain that Apple signed without an
/// `appAccountToken` (offer-code redemptions, purchases made before the app set one).
public struct AccountLinked: Hashable, Sendable, Codable {
  public static let eventType = "ledger.account_linked.v1"

  public var appAccountToken: String
  public var originalTransactionId: String
  public var linkedAt: Timestamp?
  /// When Apple accepted the token for the purchase (Set App Account Token), so that later
  /// transactions carry it; nil when the link is the ledger's alone.
  public var setAtApple: Timestamp?

  public init(
    appAccountToken: String, originalTransactionId: String, linkedAt: Timestamp? = nil,
    setAtApple: Timestamp? = nil
  ) {
    self.appAccountToken = AppAccountToken.normalized(appAccountToken)
    self.originalTransactionId = originalTransactionId
    self.linkedAt = linkedAt
    self.setAtApple = setAtApple
  }
}

extension AccountLinked {
  private enum Keys: String, CodingKey {
    case appAccountToken, originalTransactionId, linkedAt, setAtApple
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    self.init(
      appAccountToken: try container.decode(String.self, forKey: .appAccountToken),
      originalTransactionId: try container.decode(String.self, forKey: .originalTransactionId),
      linkedAt: try container.decodeIfPresent(Timestamp.self, forKey: .linkedAt),
      setAtApple: try container.decodeIfPresent(Timestamp.self, forKey: .setAtApple))
  }
}
