/// A stored notification read without `Decodable` (see FlatJSONObjectDecodable and
/// NotificationReceived+Codable.swift for the shape).
extension NotificationReceived: FlatJSONObjectDecodable {
  private enum Keys {
    static let notificationType = JSONMemberName("notificationType")
    static let subtype = JSONMemberName("subtype")
    static let notificationUUID = JSONMemberName("notificationUUID")
    static let version = JSONMemberName("version")
    static let signedDate = JSONMemberName("signedDate")
    static let data = JSONMemberName("data")
    static let summary = JSONMemberName("summary")
    static let externalPurchaseToken = JSONMemberName("externalPurchaseToken")
    static let appData = JSONMemberName("appData")
  }

  private enum DataKeys {
    static let appAppleId = JSONMemberName("appAppleId")
    static let bundleId = JSONMemberName("bundleId")
    static let bundleVersion = JSONMemberName("bundleVersion")
    static let environment = JSONMemberName("environment")
    static let signedTransactionInfo = JSONMemberName("signedTransactionInfo")
    static let signedRenewalInfo = JSONMemberName("signedRenewalInfo")
    static let status = JSONMemberName("status")
    static let consumptionRequestReason = JSONMemberName("consumptionRequestReason")
  }

  init(flat object: JSONObjectReader) throws {
    var notification = ResponseBodyV2DecodedPayload()
    notification.notificationType = try object.enumeration(Keys.notificationType)
    notification.subtype = try object.enumeration(Keys.subtype)
    notification.notificationUUID = try object.string(Keys.notificationUUID)
    notification.version = try object.string(Keys.version)
    notification.signedDate = try object.timestamp(Keys.signedDate)
    notification.summary = try object.decoded(Keys.summary)
    notification.externalPurchaseToken = try object.decoded(Keys.externalPurchaseToken)
    notification.appData = try object.decoded(Keys.appData)
    var (transaction, renewalInfo): (JWSTransactionDecodedPayload?, JWSRenewalInfoDecodedPayload?)
    if let data = try object.nested(Keys.data) {
      var body = NotificationData()
      body.appAppleId = try data.integer(DataKeys.appAppleId)
      body.bundleId = try data.string(DataKeys.bundleId)
      body.bundleVersion = try data.string(DataKeys.bundleVersion)
      body.environment = try data.enumeration(DataKeys.environment)
      body.status = try data.enumeration(DataKeys.status)
      body.consumptionRequestReason = try data.enumeration(DataKeys.consumptionRequestReason)
      (body.signedTransactionInfo, transaction) = try data.jwsOrObject(
        DataKeys.signedTransactionInfo)
      (body.signedRenewalInfo, renewalInfo) = try data.jwsOrObject(DataKeys.signedRenewalInfo)
      notification.data = body
    }
    self.init(notification: notification, transaction: transaction, renewalInfo: renewalInfo)
  }
}
