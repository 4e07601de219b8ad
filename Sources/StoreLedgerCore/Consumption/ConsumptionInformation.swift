/// The body of Send Consumption Information (v2), `ConsumptionRequest` in Apple's words: what
/// the developer tells Apple about a purchase the customer asked to have refunded.
public struct ConsumptionInformation: Hashable, Sendable, Codable {
  /// Apple accepts only `true`: the customer agreed to share the data.
  public var customerConsented: Bool
  public var deliveryStatus: DeliveryStatus
  /// A free sample, trial or description was available before the purchase.
  public var sampleContentProvided: Bool
  /// Milliunits consumed, 0–100 000; never sent for an auto-renewable subscription.
  public var consumptionPercentage: Int32?
  public var refundPreference: RefundPreference?

  public init(
    customerConsented: Bool, deliveryStatus: DeliveryStatus, sampleContentProvided: Bool,
    consumptionPercentage: Int32? = nil, refundPreference: RefundPreference? = nil
  ) {
    self.customerConsented = customerConsented
    self.deliveryStatus = deliveryStatus
    self.sampleContentProvided = sampleContentProvided
    self.consumptionPercentage = consumptionPercentage
    self.refundPreference = refundPreference
  }

  /// Apple's rules for the body (reference §6.5), for a purchase of `productType`: the first
  /// one broken, named by Apple's error, or nil. StoreLedger checks them before sending, and
  /// the simulator answers with the same errors.
  public func violation(for productType: ProductType?) -> Violation? {
    if !customerConsented { return .invalidCustomerConsented }
    if !DeliveryStatus.knownValues.contains(deliveryStatus) { return .invalidDeliveryStatus }
    if let preference = refundPreference, !RefundPreference.knownValues.contains(preference) {
      return .invalidRefundPreference
    }
    guard let percentage = consumptionPercentage else { return nil }
    if productType == .autoRenewableSubscription {
      return .consumptionPercentageAutoRenewableSubscription
    }
    if !(0...100_000).contains(percentage) { return .consumptionPercentageOutOfRange }
    if deliveryStatus != .delivered, percentage != 0 {
      return .undeliveredConsumptionPercentageNonZero
    }
    if refundPreference == .grantProrated, percentage == 0 || percentage == 100_000 {
      return .consumptionPercentageOutOfRange
    }
    return nil
  }

  /// A rule of Apple's that a body breaks, by the name of Apple's error.
  public enum Violation: String, Hashable, Sendable {
    case invalidCustomerConsented = "InvalidCustomerConsentedError"
    case invalidDeliveryStatus = "InvalidDeliveryStatusError"
    case invalidRefundPreference = "InvalidRefundPreferenceError"
    case consumptionPercentageOutOfRange = "ConsumptionPercentageOutOfRangeError"
    case undeliveredConsumptionPercentageNonZero = "UndeliveredConsumptionPercentageNonZeroError"
    case consumptionPercentageAutoRenewableSubscription =
      "ConsumptionPercentageAutoRenewableSubscriptionError"
  }
}
