import StoreLedgerCore

/// Terse builders for ledger events in tests: times are milliseconds, `day` is one day.
public enum LedgerFixtures {
  public static let day: Int64 = 86_400_000
  /// 2026-01-01T00:00:00Z, the start of every fixture timeline.
  public static let epoch: Int64 = 1_767_225_600_000

  /// The `number`th test account: an appAccountToken is a UUID (canonical, lower case).
  public static func account(_ number: Int) -> String {
    let digits = String(number)
    return "00000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - digits.count))
      + digits
  }

  public static func t(_ days: Double) -> Timestamp {
    Timestamp(milliseconds: epoch + Int64(days * Double(day)))
  }

  public static func transaction(
    _ id: String, original: String? = nil, product: String = "pro.monthly",
    type: ProductType = .autoRenewableSubscription, purchased: Double, expires: Double? = nil,
    signed: Double? = nil, token: String? = "00000000-0000-4000-8000-000000000001",
    group: String? = "group.pro",
    quantity: Int32 = 1, upgraded: Bool = false, ownership: InAppOwnershipType = .purchased,
    revoked: Double? = nil, revocationType: RevocationType? = nil, percentage: Int32? = nil,
    reason: RevocationReason? = nil
  ) -> JWSTransactionDecodedPayload {
    var payload = JWSTransactionDecodedPayload()
    payload.transactionId = id
    payload.originalTransactionId = original ?? id
    payload.productId = product
    payload.type = type
    payload.purchaseDate = t(purchased)
    payload.expiresDate = expires.map(t)
    payload.signedDate = t(signed ?? purchased)
    payload.appAccountToken = token
    payload.subscriptionGroupIdentifier = type == .autoRenewableSubscription ? group : nil
    payload.quantity = quantity
    payload.isUpgraded = upgraded ? true : nil
    payload.inAppOwnershipType = ownership
    payload.revocationDate = revoked.map(t)
    payload.revocationType = revocationType
    payload.revocationPercentage = percentage
    payload.revocationReason = revoked == nil ? nil : (reason ?? .other)
    payload.environment = .production
    return payload
  }

  public static func renewal(
    _ original: String, signed: Double, product: String = "pro.monthly",
    autoRenewProduct: String? = nil, autoRenew: AutoRenewStatus = .on, retry: Bool = false,
    grace: Double? = nil, intent: ExpirationIntent? = nil, token: String? = nil
  ) -> JWSRenewalInfoDecodedPayload {
    var payload = JWSRenewalInfoDecodedPayload()
    payload.originalTransactionId = original
    payload.productId = product
    payload.autoRenewProductId = autoRenewProduct ?? product
    payload.autoRenewStatus = autoRenew
    payload.isInBillingRetryPeriod = retry
    payload.gracePeriodExpiresDate = grace.map(t)
    payload.expirationIntent = intent
    payload.signedDate = t(signed)
    payload.appAccountToken = token
    payload.environment = .production
    return payload
  }

  public static func notification(
    _ type: NotificationType, _ subtype: NotificationSubtype? = nil, signed: Double,
    transaction: JWSTransactionDecodedPayload? = nil,
    renewal: JWSRenewalInfoDecodedPayload? = nil, status: SubscriptionStatus? = nil,
    uuid: String? = nil, recorded: Double? = nil
  ) -> LedgerEvent {
    var payload = ResponseBodyV2DecodedPayload()
    payload.notificationType = type
    payload.subtype = subtype
    payload.notificationUUID = uuid ?? "\(type.rawValue)-\(subtype?.rawValue ?? "")-\(signed)"
    payload.version = "2.0"
    payload.signedDate = t(signed)
    var data = NotificationData()
    data.bundleId = "com.example.app"
    data.environment = .production
    data.status = status
    payload.data = data
    return LedgerEvent(
      claims: .notification(
        NotificationClaims(notification: payload, transaction: transaction, renewalInfo: renewal)
      ), recordedAt: recorded.map(t), key: payload.notificationUUID)!
  }

  public static func observed(
    _ transaction: JWSTransactionDecodedPayload, forwardedToken: String? = nil,
    recorded: Double? = nil
  ) -> LedgerEvent {
    LedgerEvent(
      claims: .transaction(
        SignedTransactionClaims(transaction: transaction, appAccountToken: forwardedToken)),
      recordedAt: recorded.map(t),
      key: "tx:\(transaction.transactionId ?? ""):\(transaction.signedDate?.milliseconds ?? 0)")!
  }

  public static func observed(_ renewal: JWSRenewalInfoDecodedPayload, recorded: Double? = nil)
    -> LedgerEvent
  {
    LedgerEvent(
      claims: .renewalInfo(RenewalInfoClaims(renewalInfo: renewal)), recordedAt: recorded.map(t),
      key:
        "renewal:\(renewal.originalTransactionId ?? ""):\(renewal.signedDate?.milliseconds ?? 0)")!
  }

  public static func debit(
    _ id: String, token: String = "00000000-0000-4000-8000-000000000001", product: String,
    quantity: Int64, at: Double
  ) -> LedgerEvent {
    LedgerEvent(
      .debit(
        ConsumableDebited(
          id: id, appAccountToken: token, productId: product, quantity: quantity, debitedAt: t(at))
      ), recordedAt: t(at), key: "debit:\(id)")
  }

  public static func link(_ original: String, to token: String, at: Double) -> LedgerEvent {
    LedgerEvent(
      .link(
        AccountLinked(appAccountToken: token, originalTransactionId: original, linkedAt: t(at))),
      recordedAt: t(at), key: "link:\(original):\(token)")
  }
}
