/// A transaction's `type`.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct ProductType: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let autoRenewableSubscription = Self(rawValue: "Auto-Renewable Subscription")
  public static let nonConsumable = Self(rawValue: "Non-Consumable")
  public static let consumable = Self(rawValue: "Consumable")
  public static let nonRenewingSubscription = Self(rawValue: "Non-Renewing Subscription")

  public static let knownValues: [Self] = [
    .autoRenewableSubscription, .nonConsumable, .consumable, .nonRenewingSubscription,
  ]
}
