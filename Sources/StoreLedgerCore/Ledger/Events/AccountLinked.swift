/// The backend says an account owns a purchase chain that Apple signed without an
/// `appAccountToken` (offer-code redemptions, purchases made before the app set one).
public struct AccountLinked: Hashable, Sendable, Codable {
  public static let eventType = EventTypes.link

  public var appAccountToken: String
  public var originalTransactionId: String
  public var linkedAt: Timestamp?
  /// When Apple accepted the token for the purchase (Set App Account Token), so that later
  /// transactions carry it; nil when the link is the ledger's alone.
  public var setAtApple: Timestamp?
  /// The account that held the purchase until this link, when the link moves it (a transfer
  /// the backend asked for explicitly); nil for a link that takes a purchase nobody held.
  /// From `linkedAt` on, a transfer outranks the token Apple signed into earlier data.
  public var transferredFrom: String?

  public init(
    appAccountToken: String, originalTransactionId: String, linkedAt: Timestamp? = nil,
    setAtApple: Timestamp? = nil, transferredFrom: String? = nil
  ) {
    self.appAccountToken = AppAccountToken.normalized(appAccountToken)
    self.originalTransactionId = originalTransactionId
    self.linkedAt = linkedAt
    self.setAtApple = setAtApple
    self.transferredFrom = transferredFrom.map(AppAccountToken.normalized)
  }

  public var isTransfer: Bool { transferredFrom != nil }
}

extension AccountLinked {
  private enum Keys: String, CodingKey {
    case appAccountToken, originalTransactionId, linkedAt, setAtApple, transferredFrom
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    self.init(
      appAccountToken: try container.decode(String.self, forKey: .appAccountToken),
      originalTransactionId: try container.decode(String.self, forKey: .originalTransactionId),
      linkedAt: try container.decodeIfPresent(Timestamp.self, forKey: .linkedAt),
      setAtApple: try container.decodeIfPresent(Timestamp.self, forKey: .setAtApple),
      transferredFrom: try container.decodeIfPresent(String.self, forKey: .transferredFrom))
  }

  /// Written by hand so that a link that is no transfer stays byte for byte what it was.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(appAccountToken, forKey: .appAccountToken)
    try container.encode(originalTransactionId, forKey: .originalTransactionId)
    try container.encodeIfPresent(linkedAt, forKey: .linkedAt)
    try container.encodeIfPresent(setAtApple, forKey: .setAtApple)
    try container.encodeIfPresent(transferredFrom, forKey: .transferredFrom)
  }
}
