import Foundation
import StoreLedgerCore

extension ChangeRecord: Encodable {
  /// The one JSON shape of a change, for webhooks, `GET /v1/changes` and the CLI:
  /// `{"id", "position", "type", "appAccountToken", "effectiveAt", "recordedAt", "data": {…}}`
  /// (Unix milliseconds; `effectiveAt` null for a change recorded before effective times), the data's
  /// fields named by type (docs: projections/changes.md); on a server of several apps also
  /// `"app"` after `"type"` (positions and ids are each app's own).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Key.self)
    try container.encode(id.uuidString.lowercased(), forKey: "id")
    try container.encode(position, forKey: "position")
    try container.encode(change.kind.rawValue, forKey: "type")
    try container.encodeIfPresent(app, forKey: "app")
    try container.encode(appAccountToken, forKey: "appAccountToken")
    try container.encode(effectiveAt?.milliseconds, forKey: "effectiveAt")
    try container.encode(Timestamp(recordedAt).milliseconds, forKey: "recordedAt")
    var data = container.nestedContainer(keyedBy: Key.self, forKey: "data")
    try encodeData(into: &data)
    try data.encode(cause, forKey: "causedBy")
  }

  private func encodeData(into data: inout KeyedEncodingContainer<Key>) throws {
    let (subject, old, new) = (change.subject, change.old, change.new)
    switch change.kind {
    case .entitlementGranted, .entitlementRevoked, .entitlementEndMoved:
      try data.encode(subject, forKey: "entitlement")
      if change.kind == .entitlementEndMoved {
        try data.encode(Self.instant(old), forKey: "previousExpiresDate")
      }
      if change.kind != .entitlementRevoked {
        try data.encode(Self.instant(new), forKey: "expiresDate")
      }
    case .subscriptionStatusChanged:
      try data.encode(subject, forKey: "originalTransactionId")
      try data.encode(old.flatMap { Int($0) }, forKey: "previousStatus")
      try data.encode(new.flatMap { Int($0) }, forKey: "status")
    case .renewalExtended:
      try data.encode(subject, forKey: "originalTransactionId")
      try data.encode(Self.instant(old), forKey: "previousExpiresDate")
      try data.encode(Self.instant(new), forKey: "expiresDate")
    case .autoRenewTurnedOff, .autoRenewTurnedOn, .billingProblemStarted,
      .billingProblemResolved, .gracePeriodStarted, .gracePeriodEnded, .priceIncreasePending,
      .priceIncreaseAccepted:
      try data.encode(subject, forKey: "originalTransactionId")
    case .refunded, .refundReversed:
      try data.encode(subject, forKey: "transactionId")
    case .balanceChanged:
      try data.encode(subject, forKey: "productId")
      try data.encode(old.flatMap { Int64($0) }, forKey: "previousBalance")
      try data.encode(new.flatMap { Int64($0) }, forKey: "balance")
    case .consumptionRequestPending, .consumptionRequestAnswered, .consumptionRequestClosed:
      try data.encode(subject, forKey: "requestId")
      try data.encode(old, forKey: "transactionId")
      switch change.kind {
      case .consumptionRequestPending: try data.encode(Self.instant(new), forKey: "deadline")
      case .consumptionRequestAnswered: try data.encode(new == "late", forKey: "late")
      default: try data.encode(new, forKey: "outcome")
      }
    case .commitmentCancelled:
      try data.encode(subject, forKey: "originalTransactionId")
      try data.encode(Self.instant(new), forKey: "commitmentExpiresDate")
    case .commitmentResumed:
      try data.encode(subject, forKey: "originalTransactionId")
    case .seatsChanged:
      try data.encode(subject, forKey: "originalTransactionId")
      try data.encode(old.flatMap { Int64($0) }, forKey: "previousSeats")
      try data.encode(new.flatMap { Int64($0) }, forKey: "seats")
    case .seatClaimed, .seatReleased:
      try data.encode(subject, forKey: "seatClaimId")
      try data.encode(new ?? old, forKey: "originalTransactionId")
    case .consentRescinded:
      try data.encode(subject, forKey: "appTransactionId")
      try data.encode(new, forKey: "policy")
    case .grantStarted, .grantEnded:
      try data.encode(subject, forKey: "grantId")
      try data.encode(new ?? old, forKey: "entitlement")
    case .purchase, .renewal, .refund, .refundReversedWithMoney, .trialStarted, .trialConverted,
      .productChanged, .subscriptionCancelled, .subscriptionExpired:
      try encodeMoney(into: &data)
    }
  }

  /// A lifecycle change's money, its members in `data` (projections/changes.md, C24–C32).
  private func encodeMoney(into data: inout KeyedEncodingContainer<Key>) throws {
    guard let money = change.money else {
      try data.encode(change.subject, forKey: "subject")
      return
    }
    try data.encode(money.transactionId, forKey: "transactionId")
    try data.encode(money.originalTransactionId, forKey: "originalTransactionId")
    try data.encodeIfPresent(money.productId, forKey: "productId")
    if change.kind == .productChanged {
      try data.encodeIfPresent(change.old, forKey: "previousProductId")
    }
    try data.encodeIfPresent(money.amount, forKey: "amount")
    try data.encodeIfPresent(money.price, forKey: "price")
    try data.encodeIfPresent(money.currency, forKey: "currency")
    try data.encodeIfPresent(money.quantity, forKey: "quantity")
    try data.encodeIfPresent(money.storefront, forKey: "storefront")
    try data.encodeIfPresent(money.environment, forKey: "environment")
    if money.offerType != nil || money.offerIdentifier != nil {
      var offer = data.nestedContainer(keyedBy: Key.self, forKey: "offer")
      try offer.encodeIfPresent(money.offerType, forKey: "type")
      try offer.encodeIfPresent(money.offerIdentifier, forKey: "identifier")
      try offer.encodeIfPresent(money.offerDiscountType, forKey: "discountType")
      try offer.encodeIfPresent(money.offerPeriod, forKey: "period")
    }
    try data.encodeIfPresent(money.periodStart?.milliseconds, forKey: "periodStart")
    try data.encodeIfPresent(money.periodEnd?.milliseconds, forKey: "periodEnd")
    try data.encodeIfPresent(money.expirationIntent, forKey: "expirationIntent")
    try data.encodeIfPresent(money.reason, forKey: "reason")
  }

  /// The change as the bytes a webhook delivers and signs.
  public var jsonBytes: [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    return (try? Array(encoder.encode(self))) ?? []
  }

  /// Instants as Unix milliseconds, the one form of every StoreLedger answer (Apple's own).
  static func instant(_ milliseconds: String?) -> Int64? {
    milliseconds.flatMap { Int64($0) }
  }

  static func instant(_ time: Timestamp) -> Int64 { time.milliseconds }

  struct Key: CodingKey, ExpressibleByStringLiteral {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
    init(stringLiteral value: String) { self.stringValue = value }
  }
}
