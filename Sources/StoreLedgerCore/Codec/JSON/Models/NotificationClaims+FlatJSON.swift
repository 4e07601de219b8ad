/// A stored notification read without `Decodable` (see FlatJSONObjectDecodable and
/// NotificationClaims+Codable.swift for the shape).
extension NotificationClaims: FlatJSONObjectDecodable {
  enum MemberNames {
    static let notificationType = JSONMemberName("notificationType")
    static let subtype = JSONMemberName("subtype")
    static let notificationUUID = JSONMemberName("notificationUUID")
    static let version = JSONMemberName("version")
    static let signedDate = JSONMemberName("signedDate")
    static let data = JSONMemberName("data")
    static let summary = JSONMemberName("summary")
    static let externalPurchaseToken = JSONMemberName("externalPurchaseToken")
    static let appData = JSONMemberName("appData")
    static let unclaimInfo = JSONMemberName("unclaimInfo")
  }

  enum DataMemberNames {
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
    self.init(notification: ResponseBodyV2DecodedPayload())
    notification.notificationType = try object.enumeration(MemberNames.notificationType)
    notification.subtype = try object.enumeration(MemberNames.subtype)
    notification.signedDate = try object.timestamp(MemberNames.signedDate)
    let data = try object.nested(MemberNames.data)
    if let data {
      notification.data = NotificationData()
      notification.data?.status = try data.enumeration(DataMemberNames.status)
      try readSignedPayloads(of: data)
    }
    notification.notificationUUID = try object.string(MemberNames.notificationUUID)
    notification.version = try object.string(MemberNames.version)
    notification.summary = try object.decoded(MemberNames.summary)
    notification.externalPurchaseToken = try object.decoded(MemberNames.externalPurchaseToken)
    notification.appData = try object.decoded(MemberNames.appData)
    notification.unclaimInfo = try object.decoded(MemberNames.unclaimInfo)
    guard let data else { return }
    notification.data?.appAppleId = try data.integer(DataMemberNames.appAppleId)
    notification.data?.bundleId = try data.string(DataMemberNames.bundleId)
    notification.data?.bundleVersion = try data.string(DataMemberNames.bundleVersion)
    notification.data?.environment = try data.enumeration(DataMemberNames.environment)
    notification.data?.consumptionRequestReason = try data.enumeration(
      DataMemberNames.consumptionRequestReason)
  }

  /// The transaction and renewal info: decoded objects, or JWS strings kept as they came.
  private mutating func readSignedPayloads(of data: JSONObjectReader) throws {
    switch data.kind(DataMemberNames.signedTransactionInfo) {
    case .string:
      notification.data?.signedTransactionInfo = try data.string(
        DataMemberNames.signedTransactionInfo)
    case .object: transaction = try data.object(DataMemberNames.signedTransactionInfo)
    case .null, nil: break
    default: throw JSONObjectReader.Mismatch()
    }
    switch data.kind(DataMemberNames.signedRenewalInfo) {
    case .string:
      notification.data?.signedRenewalInfo = try data.string(DataMemberNames.signedRenewalInfo)
    case .object: renewalInfo = try data.object(DataMemberNames.signedRenewalInfo)
    case .null, nil: break
    default: throw JSONObjectReader.Mismatch()
    }
  }
}
