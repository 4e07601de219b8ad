/// JSON: the notification as Apple signs it, except that `data.signedTransactionInfo`,
/// `data.signedRenewalInfo` and `appData.signedAppTransactionInfo` may hold the decoded
/// objects (the scenario format of design.md). A JWS string there stays a string; an object
/// there becomes `transaction` / `renewalInfo` / `appTransaction`.
extension NotificationClaims: Codable {
  private enum Keys: String, CodingKey {
    case notificationType, subtype, notificationUUID, version, signedDate, data, summary
    case externalPurchaseToken, appData, unclaimInfo
  }

  private enum AppDataKeys: String, CodingKey {
    case appAppleId, bundleId, environment, signedAppTransactionInfo
  }

  private enum DataKeys: String, CodingKey {
    case appAppleId, bundleId, bundleVersion, environment, signedTransactionInfo
    case signedRenewalInfo, status, consumptionRequestReason
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    var notification = ResponseBodyV2DecodedPayload()
    notification.notificationType = try container.decodeIfPresent(
      NotificationType.self, forKey: .notificationType)
    notification.subtype = try container.decodeIfPresent(
      NotificationSubtype.self, forKey: .subtype)
    notification.notificationUUID = try container.decodeIfPresent(
      String.self, forKey: .notificationUUID)
    notification.version = try container.decodeIfPresent(String.self, forKey: .version)
    notification.signedDate = try container.decodeIfPresent(Timestamp.self, forKey: .signedDate)
    notification.summary = try container.decodeIfPresent(
      NotificationSummary.self, forKey: .summary)
    notification.externalPurchaseToken = try container.decodeIfPresent(
      ExternalPurchaseToken.self, forKey: .externalPurchaseToken)
    if container.contains(.appData), try !container.decodeNil(forKey: .appData) {
      let appData = try container.nestedContainer(keyedBy: AppDataKeys.self, forKey: .appData)
      var body = AppData()
      body.appAppleId = try appData.decodeIfPresent(Int64.self, forKey: .appAppleId)
      body.bundleId = try appData.decodeIfPresent(String.self, forKey: .bundleId)
      body.environment = try appData.decodeIfPresent(
        AppStoreEnvironment.self, forKey: .environment)
      (body.signedAppTransactionInfo, appTransaction) = try Self.jwsOrObject(
        appData, .signedAppTransactionInfo)
      notification.appData = body
    }
    notification.unclaimInfo = try container.decodeIfPresent(
      UnclaimInfo.self, forKey: .unclaimInfo)
    if container.contains(.data), try !container.decodeNil(forKey: .data) {
      let data = try container.nestedContainer(keyedBy: DataKeys.self, forKey: .data)
      var body = NotificationData()
      body.appAppleId = try data.decodeIfPresent(Int64.self, forKey: .appAppleId)
      body.bundleId = try data.decodeIfPresent(String.self, forKey: .bundleId)
      body.bundleVersion = try data.decodeIfPresent(String.self, forKey: .bundleVersion)
      body.environment = try data.decodeIfPresent(AppStoreEnvironment.self, forKey: .environment)
      body.status = try data.decodeIfPresent(SubscriptionStatus.self, forKey: .status)
      body.consumptionRequestReason = try data.decodeIfPresent(
        ConsumptionRequestReason.self, forKey: .consumptionRequestReason)
      (body.signedTransactionInfo, transaction) = try Self.jwsOrObject(
        data, .signedTransactionInfo)
      (body.signedRenewalInfo, renewalInfo) = try Self.jwsOrObject(data, .signedRenewalInfo)
      notification.data = body
    }
    self.notification = notification
  }

  private static func jwsOrObject<Payload: Decodable, Key: CodingKey>(
    _ container: KeyedDecodingContainer<Key>, _ key: Key
  ) throws -> (String?, Payload?) {
    guard container.contains(key), try !container.decodeNil(forKey: key) else { return (nil, nil) }
    if let jws = try? container.decode(String.self, forKey: key) { return (jws, nil) }
    return (nil, try container.decode(Payload.self, forKey: key))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encodeIfPresent(notification.notificationType, forKey: .notificationType)
    try container.encodeIfPresent(notification.subtype, forKey: .subtype)
    try container.encodeIfPresent(notification.notificationUUID, forKey: .notificationUUID)
    try container.encodeIfPresent(notification.version, forKey: .version)
    try container.encodeIfPresent(notification.signedDate, forKey: .signedDate)
    try container.encodeIfPresent(notification.summary, forKey: .summary)
    try container.encodeIfPresent(
      notification.externalPurchaseToken, forKey: .externalPurchaseToken)
    if let body = notification.appData {
      var appData = container.nestedContainer(keyedBy: AppDataKeys.self, forKey: .appData)
      try appData.encodeIfPresent(body.appAppleId, forKey: .appAppleId)
      try appData.encodeIfPresent(body.bundleId, forKey: .bundleId)
      try appData.encodeIfPresent(body.environment, forKey: .environment)
      if let appTransaction {
        try appData.encode(appTransaction, forKey: .signedAppTransactionInfo)
      } else {
        try appData.encodeIfPresent(
          body.signedAppTransactionInfo, forKey: .signedAppTransactionInfo)
      }
    }
    try container.encodeIfPresent(notification.unclaimInfo, forKey: .unclaimInfo)
    guard let body = notification.data else { return }
    var data = container.nestedContainer(keyedBy: DataKeys.self, forKey: .data)
    try data.encodeIfPresent(body.appAppleId, forKey: .appAppleId)
    try data.encodeIfPresent(body.bundleId, forKey: .bundleId)
    try data.encodeIfPresent(body.bundleVersion, forKey: .bundleVersion)
    try data.encodeIfPresent(body.environment, forKey: .environment)
    try data.encodeIfPresent(body.status, forKey: .status)
    try data.encodeIfPresent(body.consumptionRequestReason, forKey: .consumptionRequestReason)
    if let transaction {
      try data.encode(transaction, forKey: .signedTransactionInfo)
    } else {
      try data.encodeIfPresent(body.signedTransactionInfo, forKey: .signedTransactionInfo)
    }
    if let renewalInfo {
      try data.encode(renewalInfo, forKey: .signedRenewalInfo)
    } else {
      try data.encodeIfPresent(body.signedRenewalInfo, forKey: .signedRenewalInfo)
    }
  }
}
