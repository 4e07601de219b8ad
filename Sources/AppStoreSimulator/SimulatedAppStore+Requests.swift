import AppStoreServerAPI
import Foundation
import StoreLedgerCore

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
