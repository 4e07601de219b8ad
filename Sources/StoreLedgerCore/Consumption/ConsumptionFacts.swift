/// What the ledger knows about a purchase a customer asked to have refunded: what a
/// ``ConsumptionPolicy`` answers from.
public struct ConsumptionFacts: Hashable, Sendable, Codable {
  public var transactionId: String
  public var productId: String?
  public var productType: ProductType?
  /// Whether the ledger delivered the purchase (an account held it), and why it says so.
  public var delivered: Bool
  public var deliveryReason: String
  /// Consumables only: milliunits of this purchase's units spent, allocating the account's
  /// debits to its purchases of the product oldest first (0–100 000).
  public var consumedMilliunits: Int32?
  /// From the catalog's `sampleContentProvided` for the product.
  public var sampleContentProvided: Bool
  /// Earlier purchases of the account that Apple refunded.
  public var earlierRefunds: Int
  /// A family member's access (`FAMILY_SHARED`): Apple takes no consumption information.
  public var familyShared: Bool
  /// The customer's refund consent in force when the request is answered, as the app recorded
  /// it; nil when none is recorded (or no account holds the purchase).
  public var consent: RefundConsent?

  public init(
    transactionId: String, productId: String?, productType: ProductType?, delivered: Bool,
    deliveryReason: String, consumedMilliunits: Int32?, sampleContentProvided: Bool,
    earlierRefunds: Int, familyShared: Bool = false, consent: RefundConsent? = nil
  ) {
    self.consent = consent
    self.transactionId = transactionId
    self.productId = productId
    self.productType = productType
    self.delivered = delivered
    self.deliveryReason = deliveryReason
    self.consumedMilliunits = consumedMilliunits
    self.sampleContentProvided = sampleContentProvided
    self.earlierRefunds = earlierRefunds
    self.familyShared = familyShared
  }
}
