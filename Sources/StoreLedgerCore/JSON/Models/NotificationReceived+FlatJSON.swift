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
    // Written in place: the payloads are large values, and every copy moves and retains them.
    // What FoldInput reads comes first; a facts-only read stops after it.
    self.init(notification: ResponseBodyV2DecodedPayload())
    notification.notificationType = try object.enumeration(Keys.notificationType)
    notification.subtype = try object.enumeration(Keys.subtype)
    notification.signedDate = try object.timestamp(Keys.signedDate)
    let data = try object.nested(Keys.data)
    if let data {
      notification.data = NotificationData()
      notification.data?.status = try data.enumeration(DataKeys.status)
      try readSignedPayloads(of: data)
    }
    guard !object.factsOnly else { return }
    notification.notificationUUID = try object.string(Keys.notificationUUID)
    notification.version = try object.string(Keys.version)
    notification.summary = try object.decoded(Keys.summary)
    notification.externalPurchaseToken = try object.decoded(Keys.externalPurchaseToken)
    notification.appData = try object.decoded(Keys.appData)
    guard let data else { return }
    notification.data?.appAppleId = try data.integer(DataKeys.appAppleId)
    notification.data?.bundleId = try data.string(DataKeys.bundleId)
    notification.data?.bundleVersion = try data.string(DataKeys.bundleVersion)
    notification.data?.environment = try data.enumeration(DataKeys.environment)
    notification.data?.consumptionRequestReason = try data.enumeration(
      DataKeys.consumptionRequestReason)
  }

  /// The transaction and renewal info: decoded objects, or JWS strings kept as they came.
  private mutating func readSignedPayloads(of data: JSONObjectReader) throws {
    switch data.kind(DataKeys.signedTransactionInfo) {
    case .string:
      notification.data?.signedTransactionInfo = try data.string(DataKeys.signedTransactionInfo)
    case .object: transaction = try data.object(DataKeys.signedTransactionInfo)
    case .null, nil: break
    default: throw JSONObjectReader.Mismatch()
    }
    switch data.kind(DataKeys.signedRenewalInfo) {
    case .string: notification.data?.signedRenewalInfo = try data.string(DataKeys.signedRenewalInfo)
    case .object: renewalInfo = try data.object(DataKeys.signedRenewalInfo)
    case .null, nil: break
    default: throw JSONObjectReader.Mismatch()
    }
  }
}
