/// The backend spent units of a consumable for an account (token in lower case). Idempotent
/// by `id`.
public struct ConsumableDebited: Hashable, Sendable {
  public static let eventType = EventTypes.debit

  public var id: String
  public var appAccountToken: String
  public var productId: String
  /// Units spent (not purchases).
  public var quantity: Int64
  /// The backend's time of the debit.
  public var debitedAt: Timestamp?

  public init(
    id: String, appAccountToken: String, productId: String, quantity: Int64,
    debitedAt: Timestamp? = nil
  ) {
    self.id = id
    self.appAccountToken = AppAccountToken.normalized(appAccountToken)
    self.productId = productId
    self.quantity = quantity
    self.debitedAt = debitedAt
  }
}

extension ConsumableDebited: Codable {
  private enum Keys: String, CodingKey { case id, appAccountToken, productId, quantity, debitedAt }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    id = try container.decode(String.self, forKey: .id)
    appAccountToken = AppAccountToken.normalized(
      try container.decode(String.self, forKey: .appAccountToken))
    productId = try container.decode(String.self, forKey: .productId)
    quantity = try container.decode(Int64.self, forKey: .quantity)
    guard quantity > 0 else {
      throw DecodingError.dataCorruptedError(
        forKey: .quantity, in: container, debugDescription: "a debit spends at least one unit")
    }
    debitedAt = try container.decodeIfPresent(Timestamp.self, forKey: .debitedAt)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(id, forKey: .id)
    try container.encode(appAccountToken, forKey: .appAccountToken)
    try container.encode(productId, forKey: .productId)
    try container.encode(quantity, forKey: .quantity)
    try container.encodeIfPresent(debitedAt, forKey: .debitedAt)
  }
}
