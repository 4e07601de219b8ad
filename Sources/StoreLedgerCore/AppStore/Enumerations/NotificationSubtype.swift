/// `subtype` of an App Store Server Notification V2.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct NotificationSubtype: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let initialBuy = Self(rawValue: "INITIAL_BUY")
  public static let resubscribe = Self(rawValue: "RESUBSCRIBE")
  public static let downgrade = Self(rawValue: "DOWNGRADE")
  public static let upgrade = Self(rawValue: "UPGRADE")
  public static let autoRenewEnabled = Self(rawValue: "AUTO_RENEW_ENABLED")
  public static let autoRenewDisabled = Self(rawValue: "AUTO_RENEW_DISABLED")
  public static let voluntary = Self(rawValue: "VOLUNTARY")
  public static let billingRetry = Self(rawValue: "BILLING_RETRY")
  public static let priceIncrease = Self(rawValue: "PRICE_INCREASE")
  public static let gracePeriod = Self(rawValue: "GRACE_PERIOD")
  public static let pending = Self(rawValue: "PENDING")
  public static let accepted = Self(rawValue: "ACCEPTED")
  public static let billingRecovery = Self(rawValue: "BILLING_RECOVERY")
  public static let productNotForSale = Self(rawValue: "PRODUCT_NOT_FOR_SALE")
  public static let summary = Self(rawValue: "SUMMARY")
  public static let failure = Self(rawValue: "FAILURE")
  public static let unreported = Self(rawValue: "UNREPORTED")
  public static let created = Self(rawValue: "CREATED")
  public static let activeTokenReminder = Self(rawValue: "ACTIVE_TOKEN_REMINDER")
  /// A refund of some seats of a group subscription (`REFUND`); the purchaser keeps access.
  public static let seats = Self(rawValue: "SEATS")
  /// The purchaser added seats (at once) or will renew with more.
  public static let increaseQuantity = Self(rawValue: "INCREASE_QUANTITY")
  /// The purchaser will renew with fewer seats (from the next renewal).
  public static let decreaseQuantity = Self(rawValue: "DECREASE_QUANTITY")

  public static let knownValues: [Self] = [
    .initialBuy, .resubscribe, .downgrade, .upgrade, .autoRenewEnabled, .autoRenewDisabled,
    .voluntary, .billingRetry, .priceIncrease, .gracePeriod, .pending, .accepted, .billingRecovery,
    .productNotForSale, .summary, .failure, .unreported, .created, .activeTokenReminder,
    .seats, .increaseQuantity, .decreaseQuantity,
  ]
}
