import AppStoreServerAPI
import Foundation
import StoreLedgerCore
import Synchronization

/// The Server API calls that change the store: test notifications and renewal extensions.
extension SimulatedAppStore {
  /// Request a Test Notification: a `TEST` notification queued for delivery; its token.
  public func requestTestNotification() -> SendTestNotificationResponse {
    let uuid = notifyTest()
    var response = SendTestNotificationResponse()
    response.testNotificationToken = "\(uuid)_\(now.milliseconds)"
    return response
  }

  /// Get Test Notification Status: 404 until the first attempt.
  public func testNotificationStatus(_ token: String) throws(APIErrorResponse.Failure)
    -> CheckTestNotificationResponse
  {
    guard let separator = token.lastIndex(of: "_"),
      Int64(token[token.index(after: separator)...]) != nil
    else { throw .init(.invalidTestNotificationToken, "invalid test notification token") }
    let uuid = String(token[..<separator])
    guard let notification = notifications().first(where: { $0.uuid == uuid && $0.type == .test }),
      !notification.attempts.isEmpty
    else { throw .init(.testNotificationNotFound, "test notification not found or not sent yet") }
    var response = CheckTestNotificationResponse()
    response.signedPayload = notification.signedPayload
    response.sendAttempts = notification.attempts
    response.firstSendAttemptResult = notification.attempts.first?.sendAttemptResult
    return response
  }

  /// Extend a Subscription Renewal Date: the newest period of an active, purchased
  /// subscription ends `extendByDays` later; at most twice per 365 days; the same
  /// `requestIdentifier` again gives the first answer. Sends `RENEWAL_EXTENDED`.
  public func extendRenewalDate(
    _ originalTransactionId: String, _ request: ExtendRenewalDateRequest
  )
    throws(APIErrorResponse.Failure) -> ExtendRenewalDateResponse
  {
    guard !originalTransactionId.isEmpty,
      originalTransactionId.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
    else { throw .init(.invalidOriginalTransactionId, "invalid original transaction id") }
    let (days, _, requestId) = try request.validated()
    if let earlier = extensionAnswer(requestId) { return earlier }
    guard let customer = customer(of: originalTransactionId),
      let latest = newestPeriod(of: originalTransactionId, customer: customer)
    else { throw .init(.originalTransactionIdNotFound, "original transaction id not found") }
    if latest.inAppOwnershipType == .familyShared {
      throw .init(
        .familySharedSubscriptionExtensionIneligible,
        "family-shared subscriptions are extended with the purchaser's")
    }
    let status = subscription(originalTransactionId)?.status
    guard latest.revocationDate == nil, let expires = latest.expiresDate, expires > now,
      status == nil || status == .active
    else { throw .init(.subscriptionExtensionIneligible, "the subscription is not active") }
    // Apple's SubscriptionExtensionIneligibleError: a free offer period is not extended.
    if latest.offerDiscountType == .freeTrial || (latest.offerType != nil && latest.price == 0) {
      throw .init(.subscriptionExtensionIneligible, "a free offer period cannot be extended")
    }
    let yearAgo = now.milliseconds - 365 * SimulationConfiguration.day
    guard extensions(of: originalTransactionId).filter({ $0 > yearAgo }).count < 2 else {
      throw .init(.subscriptionMaxExtension, "already extended twice in 365 days")
    }
    var extended = latest
    extended.expiresDate = Timestamp(
      milliseconds: expires.milliseconds + Int64(days) * SimulationConfiguration.day)
    put(extended, customer: customer)
    notify(
      .renewalExtended, transaction: extended,
      renewal: subscription(originalTransactionId)?.renewalInfo, status: .active)
    var response = ExtendRenewalDateResponse()
    response.originalTransactionId = originalTransactionId
    response.webOrderLineItemId = extended.webOrderLineItemId
    response.success = true
    response.effectiveDate = extended.expiresDate
    recordExtension(requestId, of: originalTransactionId, response)
    return response
  }

  /// The subscription's newest period that was not upgraded away.
  private func newestPeriod(of originalTransactionId: String, customer: String)
    -> JWSTransactionDecodedPayload?
  {
    var newest: JWSTransactionDecodedPayload?
    for (payload, _) in history(of: customer)
    where payload.originalTransactionId == originalTransactionId && payload.isUpgraded != true {
      let purchased = payload.purchaseDate?.milliseconds ?? 0
      if purchased >= (newest?.purchaseDate?.milliseconds ?? .min) { newest = payload }
    }
    return newest
  }
}

extension SimulatedAppStore {
  /// Extend Subscription Renewal Dates for All Active Subscribers: every subscription of the
  /// product whose newest period is in one of the storefronts is extended as the single call
  /// would (RENEWAL_EXTENDED each), a failure sends RENEWAL_EXTENSION / FAILURE, the end
  /// RENEWAL_EXTENSION / SUMMARY. Apple takes hours; the simulator finishes before answering.
  /// The same request identifier again answers 200 and changes nothing.
  public func massExtendRenewalDate(_ request: MassExtendRenewalDateRequest)
    throws(APIErrorResponse.Failure) -> MassExtendRenewalDateResponse
  {
    let (days, reason, id, productId, storefronts) = try request.validated()
    var response = MassExtendRenewalDateResponse()
    response.requestIdentifier = id
    let key = "\(productId)/\(id)"
    guard state.withLock({ $0.massExtensions[key] }) == nil else { return response }
    var (succeeded, failed): (Int64, Int64) = (0, 0)
    for original in eligibleChains(of: productId, in: storefronts) {
      do {
        _ = try extendRenewalDate(
          original,
          ExtendRenewalDateRequest(
            extendByDays: days, extendReasonCode: reason,
            requestIdentifier: "\(id):\(original)"))
        succeeded += 1
      } catch {
        failed += 1
        if let current = transaction(original) {
          notify(.renewalExtension, .failure, transaction: current)
        }
      }
    }
    var summary = NotificationSummary()
    summary.requestIdentifier = id
    summary.productId = productId
    summary.storefrontCountryCodes = storefronts
    summary.succeededCount = succeeded
    summary.failedCount = failed
    notifySummary(summary)
    var status = MassExtendRenewalDateStatusResponse()
    status.requestIdentifier = id
    status.complete = true
    status.completeDate = now
    status.succeededCount = succeeded
    status.failedCount = failed
    state.withLock { $0.massExtensions[key] = status }
    return response
  }

  /// Get Status of Subscription Renewal Date Extensions.
  public func massExtensionStatus(productId: String, requestIdentifier: String)
    throws(APIErrorResponse.Failure) -> MassExtendRenewalDateStatusResponse
  {
    guard !productId.isEmpty else { throw .init(.invalidProductId, "invalid product id") }
    guard !requestIdentifier.isEmpty, requestIdentifier.count <= 128 else {
      throw .init(.invalidRequestIdentifier, "invalid request identifier")
    }
    guard let status = state.withLock({ $0.massExtensions["\(productId)/\(requestIdentifier)"] })
    else { throw .init(.statusRequestNotFound, "no such mass extension") }
    return status
  }

  /// The subscriptions whose newest period is of `productId` (and in `storefronts`).
  private func eligibleChains(of productId: String, in storefronts: [String]?) -> [String] {
    let newest = state.withLock { state -> [String: JWSTransactionDecodedPayload] in
      var newest: [String: JWSTransactionDecodedPayload] = [:]
      for stored in state.transactions.values {
        let payload = stored.payload
        guard payload.type == .autoRenewableSubscription, payload.isUpgraded != true,
          let original = payload.originalTransactionId
        else { continue }
        if (newest[original]?.purchaseDate?.milliseconds ?? .min)
          < (payload.purchaseDate?.milliseconds ?? 0)
        {
          newest[original] = payload
        }
      }
      return newest
    }
    return newest.filter { _, period in
      period.productId == productId
        && (storefronts.map { codes in period.storefront.map(codes.contains) ?? false } ?? true)
    }.keys.sorted()
  }
}
