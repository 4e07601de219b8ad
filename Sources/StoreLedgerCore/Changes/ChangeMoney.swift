import Foundation

/// What a money-bearing change carries (projections/changes.md, C24–C32): the transaction,
/// what was charged or returned, and the terms Apple signed: currency, quantity, storefront,
/// offer and period. Stored as the change's new value (JSON), so the feed's shape is the
/// same for every kind.
public struct ChangeMoney: Hashable, Sendable, Codable {
  public var transactionId: String
  public var originalTransactionId: String
  public var productId: String?
  /// Milliunits of `currency`: charged (purchase, renewal), returned (refund, its reversal).
  public var amount: Int64?
  /// Apple's `price` as signed (for seats, the average per seat).
  public var price: Int64?
  public var currency: String?
  public var quantity: Int64?
  public var storefront: String?
  public var environment: String?
  public var offerType: Int32?
  public var offerIdentifier: String?
  public var offerDiscountType: String?
  public var offerPeriod: String?
  public var periodStart: Timestamp?
  public var periodEnd: Timestamp?
  /// Why the subscription will end or ended (`subscription.cancelled`, `.expired`).
  public var expirationIntent: Int32?
  /// Why a subscription's charge was made, from Apple's fields (``ChargeReason``):
  /// `purchase` and `renewal` of a subscription.
  public var reason: String?

  public init(
    _ facts: TransactionFacts, amount: Int64?, expirationIntent: Int32? = nil,
    reason: ChargeReason? = nil
  ) {
    let terms = facts.terms
    transactionId = facts.transactionId
    originalTransactionId = facts.originalTransactionId
    productId = facts.productId
    self.amount = amount
    price = terms?.price
    currency = terms?.currency
    quantity = facts.quantity
    storefront = terms?.storefront
    environment = terms?.environment?.rawValue
    offerType = terms?.offerType?.rawValue
    offerIdentifier = terms?.offerIdentifier
    offerDiscountType = terms?.offerDiscountType?.rawValue
    offerPeriod = terms?.offerPeriod
    periodStart = facts.purchaseDate
    periodEnd = facts.expiresDate
    self.expirationIntent = expirationIntent
    self.reason = reason?.rawValue
  }

  /// Compact JSON with sorted members: the same money always gives the same text.
  public var jsonText: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "{}"
  }

  public init?(jsonText: String) {
    guard let value = try? JSONDecoder().decode(Self.self, from: Data(jsonText.utf8)) else {
      return nil
    }
    self = value
  }
}
