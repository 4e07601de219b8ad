/// JSON: one key naming the kind (`notification`, `transaction`, `renewalInfo`, `status`,
/// `debit`, `link`) holding its body, plus optional `recordedAt` (ms), `key`, and, beside a
/// `transaction`, the `appAccountToken` the backend forwarded with it.
extension LedgerEvent: Codable {
  private enum Keys: String, CodingKey, CaseIterable {
    case notification, transaction, renewalInfo, status, debit, link
    case recordedAt, key, appAccountToken
  }

  private static let kinds: [Keys] = [
    .notification, .transaction, .renewalInfo, .status, .debit, .link,
  ]

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    let present = Self.kinds.filter { container.contains($0) }
    guard present.count == 1, let kind = present.first else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription:
            "an event needs exactly one of notification, transaction, renewalInfo, status, debit, link"
        ))
    }
    self.init(
      try Self.body(kind, in: container),
      recordedAt: try container.decodeIfPresent(Timestamp.self, forKey: .recordedAt),
      key: try container.decodeIfPresent(String.self, forKey: .key))
  }

  private static func body(_ kind: Keys, in container: KeyedDecodingContainer<Keys>) throws
    -> Body
  {
    switch kind {
    case .notification:
      return .notification(try container.decode(NotificationReceived.self, forKey: kind))
    case .transaction:
      return .transaction(
        TransactionObserved(
          transaction: try container.decode(JWSTransactionDecodedPayload.self, forKey: kind),
          appAccountToken: try container.decodeIfPresent(String.self, forKey: .appAccountToken)))
    case .renewalInfo:
      return .renewalInfo(
        RenewalInfoObserved(
          renewalInfo: try container.decode(JWSRenewalInfoDecodedPayload.self, forKey: kind)))
    case .status: return .status(try container.decode(StatusObserved.self, forKey: kind))
    case .debit: return .debit(try container.decode(ConsumableDebited.self, forKey: kind))
    default: return .link(try container.decode(AccountLinked.self, forKey: kind))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    switch body {
    case .notification(let event): try container.encode(event, forKey: .notification)
    case .transaction(let event):
      try container.encode(event.transaction, forKey: .transaction)
      try container.encodeIfPresent(event.appAccountToken, forKey: .appAccountToken)
    case .renewalInfo(let event): try container.encode(event.renewalInfo, forKey: .renewalInfo)
    case .status(let event): try container.encode(event, forKey: .status)
    case .debit(let event): try container.encode(event, forKey: .debit)
    case .link(let event): try container.encode(event, forKey: .link)
    }
    try container.encodeIfPresent(recordedAt, forKey: .recordedAt)
    try container.encodeIfPresent(key, forKey: .key)
  }
}

extension StatusObserved: Codable {
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

extension ConsumableDebited: Codable {
  private enum Keys: String, CodingKey { case id, appAccountToken, productId, quantity, debitedAt }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    id = try container.decode(String.self, forKey: .id)
    appAccountToken = try container.decode(String.self, forKey: .appAccountToken)
    productId = try container.decode(String.self, forKey: .productId)
    quantity = try container.decode(Int64.self, forKey: .quantity)
    guard quantity > 0 else {
      throw DecodingError.dataCorruptedError(
        forKey: .quantity, in: container, debugDescription: "a debit spends at least one unit")
    }
    debitedAt = try container.decodeIfPresent(Timestamp.self, forKey: .debitedAt)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(id, forKey: .id)
    try container.encode(appAccountToken, forKey: .appAccountToken)
    try container.encode(productId, forKey: .productId)
    try container.encode(quantity, forKey: .quantity)
    try container.encodeIfPresent(debitedAt, forKey: .debitedAt)
  }
}
