import AppStoreServerAPI
import AppStoreVerification
import Foundation
import StoreLedgerCore

extension SimulatedAppStore {
  /// Signs a V2 notification about `transaction` (and `renewal`) at the store's time and
  /// queues it for delivery; returns its `notificationUUID`.
  @discardableResult
  public func notify(
    _ type: NotificationType, _ subtype: NotificationSubtype? = nil,
    transaction: JWSTransactionDecodedPayload? = nil, renewal: JWSRenewalInfoDecodedPayload? = nil,
    status: SubscriptionStatus? = nil, uuid: String = UUID().uuidString.lowercased()
  ) -> String {
    var (body, data) = envelope(type, subtype, uuid: uuid)
    data.signedTransactionInfo = transaction.map { stampedAndSigned($0) }
    data.signedRenewalInfo = renewal.map { signed($0) }
    data.status = status
    if type == .consumptionRequest {
      // Apple says why the customer asked for a refund (since April 2024).
      var digest = StableDigest()
      digest.add(uuid)
      data.consumptionRequestReason =
        Self.consumptionReasons[
          Int(digest.value % UInt64(Self.consumptionReasons.count))]
    }
    body.data = data
    let notification = SimulatedNotification(
      uuid: uuid, type: type, subtype: subtype, signedPayload: try! signer.sign(body),
      sentAt: now, transactionId: transaction?.transactionId)
    enqueue(notification)
    return uuid
  }

  static let consumptionReasons: [ConsumptionRequestReason] = [
    .unintendedPurchase, .fulfillmentIssue, .unsatisfiedWithPurchase, .legal, .other,
  ]

  /// A `TEST` notification: `data` with the app's identity only, no subtype.
  func notifyTest() -> String {
    let uuid = UUID().uuidString.lowercased()
    var (body, data) = envelope(.test, nil, uuid: uuid)
    body.data = data
    enqueue(
      SimulatedNotification(
        uuid: uuid, type: .test, subtype: nil, signedPayload: try! signer.sign(body), sentAt: now,
        transactionId: nil))
    return uuid
  }

  /// RENEWAL_EXTENSION / SUMMARY: the end of a mass extension, with `summary` instead of data.
  func notifySummary(_ summary: NotificationSummary) {
    let uuid = UUID().uuidString.lowercased()
    var (body, _) = envelope(.renewalExtension, .summary, uuid: uuid)
    var stamped = summary
    stamped.environment = app.environment
    stamped.bundleId = app.bundleId
    stamped.appAppleId = app.environment == .production ? app.appAppleId : nil
    body.summary = stamped
    enqueue(
      SimulatedNotification(
        uuid: uuid, type: .renewalExtension, subtype: .summary,
        signedPayload: try! signer.sign(body), sentAt: now, transactionId: nil))
  }

  /// A notification signed now, and its `data` with the app's identity.
  private func envelope(_ type: NotificationType, _ subtype: NotificationSubtype?, uuid: String)
    -> (ResponseBodyV2DecodedPayload, NotificationData)
  {
    var body = ResponseBodyV2DecodedPayload()
    body.notificationType = type
    body.subtype = subtype
    body.notificationUUID = uuid
    body.version = "2.0"
    body.signedDate = now
    var data = NotificationData()
    // Apple leaves the App Apple ID out of Sandbox notifications (reference §2.3).
    data.appAppleId = app.environment == .production ? app.appAppleId : nil
    data.bundleId = app.bundleId
    data.bundleVersion = app.bundleVersion
    data.environment = app.environment
    return (body, data)
  }

  private func stampedAndSigned(_ transaction: JWSTransactionDecodedPayload) -> String {
    var stamped = transaction
    stamped.bundleId = app.bundleId
    stamped.environment = app.environment
    return signed(stamped)
  }

  /// Get Notification History: the window, filters and pages of 20.
  public func notificationHistory(_ request: NotificationHistoryRequest, paginationToken: String?)
    throws(APIErrorResponse.Failure) -> NotificationHistoryResponse
  {
    let (start, end) = try request.validated()
    if let days = app.notificationHistoryDays,
      start.milliseconds < now.milliseconds - days * 86_400_000
    {
      throw .init(.startDateTooFarInPast, "startDate is more than \(days) days in the past")
    }
    var owner: String?
    if let id = request.transactionId {
      try Self.checkIdentifier(id)
      guard let found = customer(of: id) else {
        throw .init(.transactionIdNotFound, "transaction id not found")
      }
      owner = found
    }
    var offset: Int64 = 0
    if let paginationToken {
      guard let revision = try? Revision(token: paginationToken) else {
        throw .init(.invalidPaginationToken, "invalid pagination token")
      }
      offset = revision.position
    }
    let matching = notifications().filter { notification in
      guard notification.sentAt >= start, notification.sentAt <= end else { return false }
      if let type = request.notificationType, notification.type != type { return false }
      if let subtype = request.notificationSubtype, notification.subtype != subtype { return false }
      if request.onlyFailures == true, notification.delivered { return false }
      if let owner {
        return notification.transactionId.map { customer(of: $0) == owner } ?? false
      }
      return true
    }
    let first = Int(min(offset, Int64(matching.count)))
    let page = matching[first..<min(first + Self.pageSize, matching.count)]
    var response = NotificationHistoryResponse()
    response.notificationHistory = page.map { notification in
      var item = NotificationHistoryResponseItem()
      item.signedPayload = notification.signedPayload
      item.sendAttempts = notification.attempts
      item.firstSendAttemptResult = notification.attempts.first?.sendAttemptResult
      return item
    }
    response.hasMore = first + page.count < matching.count
    if response.hasMore == true {
      response.paginationToken =
        Revision(direction: .ascending, position: Int64(first + page.count)).token
    }
    return response
  }
}

extension SimulatedAppStore {
  /// `RESCIND_CONSENT` (Notifications, November 2025): `appData` with the app's identity and
  /// the customer's app transaction, signed.
  @discardableResult
  public func notifyRescindedConsent(_ appTransactionId: String, uuid: String) -> String {
    var body = ResponseBodyV2DecodedPayload()
    body.notificationType = .rescindConsent
    body.notificationUUID = uuid
    body.version = "2.0"
    body.signedDate = now
    var app = JWSAppTransactionDecodedPayload()
    app.appTransactionId = appTransactionId
    app.bundleId = self.app.bundleId
    app.appAppleId = self.app.environment == .production ? self.app.appAppleId : nil
    app.receiptType = self.app.environment
    app.receiptCreationDate = now
    var data = AppData()
    data.bundleId = self.app.bundleId
    data.environment = self.app.environment
    data.appAppleId = self.app.environment == .production ? self.app.appAppleId : nil
    data.signedAppTransactionInfo = try! signer.sign(app)
    body.appData = data
    enqueue(
      SimulatedNotification(
        uuid: uuid, type: .rescindConsent, subtype: nil, signedPayload: try! signer.sign(body),
        sentAt: now, transactionId: nil))
    return uuid
  }

  /// A notification of a type and body object no release knows: `body` names the object,
  /// which carries nothing of the app's identity (as `unclaimInfo` did when it came).
  @discardableResult
  public func notifyFuture(type: String, body: String, uuid: String) -> String {
    var payload = ResponseBodyV2DecodedPayload()
    payload.notificationType = NotificationType(rawValue: type)
    payload.notificationUUID = uuid
    payload.version = "2.0"
    payload.signedDate = now
    payload.unknownMembers[body] = .object([
      "items": .array([.string(uuid.prefix(8).description)]), "count": .number(1),
    ])
    enqueue(
      SimulatedNotification(
        uuid: uuid, type: NotificationType(rawValue: type), subtype: nil,
        signedPayload: try! signer.sign(payload), sentAt: now, transactionId: nil))
    return uuid
  }
}
