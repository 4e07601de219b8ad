import Foundation
import StoreLedgerCore

/// The body of Send Consumption Information version 1
/// (`PUT /inApps/v1/transactions/consumption/{transactionId}`), deprecated in favour of
/// ``ConsumptionInformation`` but still offered by Apple's libraries: every answer is a small
/// integer code, and `customerConsented` must be true.
public struct ConsumptionRequestV1: Hashable, Sendable, Codable {
  public var customerConsented: Bool?
  /// 0 undeclared, 1 not consumed, 2 partially consumed, 3 fully consumed.
  public var consumptionStatus: Int32?
  /// 0 undeclared, 1 an Apple platform, 2 another platform.
  public var platform: Int32?
  public var sampleContentProvided: Bool?
  /// 0 delivered and working; 1 quality issue; 2 wrong item; 3 server outage; 4 in-game
  /// currency change; 5 other reason.
  public var deliveryStatus: Int32?
  /// The customer's token, or the empty string when there is none.
  public var appAccountToken: String?
  public var accountTenure: Int32?
  public var playTime: Int32?
  public var lifetimeDollarsRefunded: Int32?
  public var lifetimeDollarsPurchased: Int32?
  /// 0 undeclared, 1 active, 2 suspended, 3 terminated, 4 limited access.
  public var userStatus: Int32?
  /// 0 undeclared, 1 prefer granting, 2 prefer declining, 3 no preference.
  public var refundPreference: Int32?

  public init() {}

  /// The first field Apple's rules refuse, as Apple's error code; nil when the body is whole.
  /// Every field but `refundPreference` is required.
  public var violation: APIErrorCode? {
    func within(_ value: Int32?, _ range: ClosedRange<Int32>) -> Bool {
      value.map(range.contains) ?? false
    }
    if !within(accountTenure, 0...7) { return .invalidAccountTenure }
    guard let token = appAccountToken, token.isEmpty || UUID(uuidString: token) != nil else {
      return .invalidAppAccountToken
    }
    if !within(consumptionStatus, 0...3) { return .invalidConsumptionStatus }
    if customerConsented != true { return .invalidCustomerConsented }
    if !within(deliveryStatus, 0...5) { return .invalidDeliveryStatus }
    if !within(lifetimeDollarsPurchased, 0...7) { return .invalidLifetimeDollarsPurchased }
    if !within(lifetimeDollarsRefunded, 0...7) { return .invalidLifetimeDollarsRefunded }
    if !within(platform, 0...2) { return .invalidPlatform }
    if !within(playTime, 0...7) { return .invalidPlayTime }
    if sampleContentProvided == nil { return .invalidSampleContentProvided }
    if !within(userStatus, 0...4) { return .invalidUserStatus }
    if let preference = refundPreference, !(0...3).contains(preference) {
      return .invalidRefundPreference
    }
    return nil
  }

  /// The same answer in version 2's words, for a purchase of `productType`: delivery and
  /// preference carried over; the consumption status as a share (none, half, all) for what
  /// was delivered, and no share for an auto-renewable, for which Apple computes it.
  public func information(for productType: ProductType?) -> ConsumptionInformation {
    let delivery: DeliveryStatus =
      switch deliveryStatus {
      case 0: .delivered
      case 1: .undeliveredQualityIssue
      case 2: .undeliveredWrongItem
      case 3: .undeliveredServerOutage
      default: .undeliveredOther
      }
    let preference: RefundPreference? =
      switch refundPreference {
      case 1: .grantFull
      case 2: .decline
      default: nil
      }
    var share: Int32?
    if productType != .autoRenewableSubscription, delivery == .delivered {
      share =
        switch consumptionStatus {
        case 1: 0
        case 2: 50_000
        case 3: 100_000
        default: nil
        }
    }
    return ConsumptionInformation(
      customerConsented: customerConsented == true, deliveryStatus: delivery,
      sampleContentProvided: sampleContentProvided == true, consumptionPercentage: share,
      refundPreference: preference)
  }
}
