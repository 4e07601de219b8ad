import StoreLedgerCore

extension CustomerLifecycle {
  mutating func newId() -> String {
    nextId += 1
    return String(nextId)
  }

  /// `owner`: another Apple Account's transaction (a group member's own), else this
  /// customer's.
  mutating func put(
    _ transaction: JWSTransactionDecodedPayload, at time: Int64, owner: String? = nil
  ) {
    steps.append(
      .init(
        time: Timestamp(milliseconds: time), customer: owner ?? customer,
        action: .put(transaction)))
  }

  mutating func setRenewal(
    _ renewal: JWSRenewalInfoDecodedPayload, _ status: SubscriptionStatus, at time: Int64
  ) {
    let at = Timestamp(milliseconds: time)
    steps.append(.init(time: at, customer: customer, action: .renewal(renewal, status: status)))
    truth.note(renewal.originalTransactionId!, status, at: at)
  }

  /// A renewal info Apple signs at `time`, and the notification about `transaction` it
  /// comes with; `status` is the subscription's from then on.
  mutating func announce(
    _ renewal: inout JWSRenewalInfoDecodedPayload, _ status: SubscriptionStatus,
    _ type: NotificationType, _ subtype: NotificationSubtype?,
    about transaction: JWSTransactionDecodedPayload, at time: Int64
  ) {
    renewal.signedDate = Timestamp(milliseconds: time)
    setRenewal(renewal, status, at: time)
    notify(type, subtype, transaction, status, at: time)
  }

  /// A notification about `transaction`; for a subscription, `status` is Apple's from now on.
  mutating func notify(
    _ type: NotificationType, _ subtype: NotificationSubtype?,
    _ transaction: JWSTransactionDecodedPayload, _ status: SubscriptionStatus?, at time: Int64
  ) {
    let at = Timestamp(milliseconds: time)
    steps.append(
      .init(
        time: at, customer: customer,
        action: .notify(type, subtype, transactionId: transaction.transactionId!, status: status)))
    if let status, transaction.type == .autoRenewableSubscription {
      truth.note(transaction.originalTransactionId!, status, at: at)
    }
  }

  func transaction(
    _ id: String, original: String?, product: String,
    type: ProductType = .autoRenewableSubscription, at time: Int64, expires: Int64? = nil,
    quantity: Int32 = 1, ownership: InAppOwnershipType = .purchased
  ) -> JWSTransactionDecodedPayload {
    var payload = JWSTransactionDecodedPayload()
    payload.transactionId = id
    payload.originalTransactionId = original ?? id
    payload.webOrderLineItemId =
      type == .autoRenewableSubscription ? String(Int64(id)! + 5_000_000) : nil
    payload.productId = product
    payload.subscriptionGroupIdentifier = type == .autoRenewableSubscription ? P.group : nil
    payload.type = type
    payload.purchaseDate = Timestamp(milliseconds: time)
    payload.originalPurchaseDate = Timestamp(milliseconds: time)
    payload.expiresDate = expires.map(Timestamp.init(milliseconds:))
    payload.quantity = quantity
    payload.price = (P.prices[product] ?? 0) * Int64(quantity)
    payload.currency = "USD"
    payload.storefront = "USA"
    payload.storefrontId = "143441"
    payload.appAccountToken = token
    payload.appTransactionId = appTransactionId
    payload.inAppOwnershipType = ownership
    payload.transactionReason = .purchase
    return payload
  }

  func renewalInfo(_ original: String, product: String, at time: Int64)
    -> JWSRenewalInfoDecodedPayload
  {
    var renewal = JWSRenewalInfoDecodedPayload()
    renewal.originalTransactionId = original
    renewal.productId = product
    renewal.autoRenewProductId = product
    renewal.autoRenewStatus = .on
    renewal.isInBillingRetryPeriod = false
    let subscription = P.subscription(product)
    renewal.renewalDate = Timestamp(
      milliseconds: time + (subscription?.period ?? SimulationConfiguration.period))
    renewal.renewalPrice = subscription?.price
    renewal.currency = "USD"
    renewal.appTransactionId = appTransactionId
    renewal.recentSubscriptionStartDate = Timestamp(milliseconds: time)
    renewal.appAccountToken = token
    renewal.signedDate = Timestamp(milliseconds: time)
    return renewal
  }

  /// The customer's Apple Account × app: one per customer, on every transaction and renewal
  /// info (Apple adds it since 2025).
  var appTransactionId: String {
    String(704_000_000_000_000_000 + (nextIdBase - 2_000_000_000_000_000) / 10_000)
  }

  /// A version-4 UUID from the customer's generator.
  static func uuid(_ random: inout SimulatorRandom) -> String {
    let high = random.next()
    let low = random.next()
    var bytes =
      (0..<8).map { UInt8(truncatingIfNeeded: high >> (8 * $0)) }
      + (0..<8).map { UInt8(truncatingIfNeeded: low >> (8 * $0)) }
    bytes[6] = (bytes[6] & 0x0F) | 0x40
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    let hex = bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
      String(hex.dropFirst(range.lowerBound).prefix(range.count))
    }
    return parts.joined(separator: "-")
  }
}

extension String {
  fileprivate func leftPadded(to length: Int) -> String {
    String(repeating: "0", count: max(0, length - count)) + self
  }
}
