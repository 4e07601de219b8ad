/// One subscription as Get All Subscription Statuses reported it: Apple's status and the
/// newest transaction and renewal info of that `originalTransactionId`.
public struct StatusClaims: Hashable, Sendable {
  public static let eventType = EventTypes.statusClaims

  public var originalTransactionId: String
  public var subscriptionGroupIdentifier: String?
  public var status: SubscriptionStatus?
  public var transaction: JWSTransactionDecodedPayload?
  public var renewalInfo: JWSRenewalInfoDecodedPayload?

  public init(
    originalTransactionId: String, subscriptionGroupIdentifier: String? = nil,
    status: SubscriptionStatus? = nil, transaction: JWSTransactionDecodedPayload? = nil,
    renewalInfo: JWSRenewalInfoDecodedPayload? = nil
  ) {
    self.originalTransactionId = originalTransactionId
    self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
    self.status = status
    self.transaction = transaction
    self.renewalInfo = renewalInfo
  }

  /// Apple's time for the observation: the newest signature in it.
  public var signedDate: Timestamp? {
    [transaction?.signedDate, renewalInfo?.signedDate].compactMap { $0 }.max()
  }
}

extension StatusClaims: Codable {
  private enum Keys: String, CodingKey {
    case originalTransactionId, subscriptionGroupIdentifier, status
    case signedTransactionInfo, signedRenewalInfo
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    originalTransactionId = try container.decode(String.self, forKey: .originalTransactionId)
    subscriptionGroupIdentifier = try container.decodeIfPresent(
      String.self, forKey: .subscriptionGroupIdentifier)
    status = try container.decodeIfPresent(SubscriptionStatus.self, forKey: .status)
    transaction = try container.decodeIfPresent(
      JWSTransactionDecodedPayload.self, forKey: .signedTransactionInfo)
    renewalInfo = try container.decodeIfPresent(
      JWSRenewalInfoDecodedPayload.self, forKey: .signedRenewalInfo)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(originalTransactionId, forKey: .originalTransactionId)
    try container.encodeIfPresent(
      subscriptionGroupIdentifier, forKey: .subscriptionGroupIdentifier)
    try container.encodeIfPresent(status, forKey: .status)
    try container.encodeIfPresent(transaction, forKey: .signedTransactionInfo)
    try container.encodeIfPresent(renewalInfo, forKey: .signedRenewalInfo)
  }
}
