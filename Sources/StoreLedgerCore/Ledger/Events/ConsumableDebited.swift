/// The backend spent units of a consumable for an account. Idempotent by `id`.
public struct ConsumableDebited: Hashable, Sendable {
  public static let eventType = "ledger.consumable_debited.v1"

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
    self.appAccountToken = appAccountToken
    self.productId = productId
    self.quantity = quantity
    self.debitedAt = debitedAt
  }
}
