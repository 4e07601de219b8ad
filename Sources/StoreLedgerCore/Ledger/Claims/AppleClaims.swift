/// What Apple signed, verified and decoded: the evidence an event's facts are made from. Kept
/// beside the facts in the log (the `claims` column; the payload of rows written before the
/// facts were), re-derived from the JWS by the audit, and the input of scenario files.
public enum AppleClaims: Hashable, Sendable {
  case notification(NotificationClaims)
  case transaction(SignedTransactionClaims)
  case renewalInfo(RenewalInfoClaims)
  case status(StatusClaims)

  /// The event type under which rows holding these claims as their payload were written
  /// (before the log stored facts).
  public var claimsEventType: String {
    switch self {
    case .notification: NotificationClaims.eventType
    case .transaction: SignedTransactionClaims.eventType
    case .renewalInfo: RenewalInfoClaims.eventType
    case .status: StatusClaims.eventType
    }
  }

  /// The event types of rows whose payload is claims.
  public static let claimsEventTypes = EventTypes.types(of: .claims)
}

/// JSON (design.md, "Scenario files"): one key naming the kind (`notification`,
/// `transaction`, `renewalInfo`, `status`) holding Apple's decoded payload, and, beside a
/// `transaction`, the `appAccountToken` the backend forwarded with it.
extension AppleClaims: Codable {
  enum Keys: String, CodingKey, CaseIterable {
    case notification, transaction, renewalInfo, status, appAccountToken
  }

  static let kinds: [Keys] = [.notification, .transaction, .renewalInfo, .status]

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    let kind = try container.onlyKind(of: Self.kinds, for: "claims")
    self = try Self.claims(kind, in: container)
  }

  static func claims(_ kind: Keys, in container: KeyedDecodingContainer<Keys>) throws -> Self {
    switch kind {
    case .notification:
      return .notification(try container.decode(NotificationClaims.self, forKey: kind))
    case .transaction:
      return .transaction(
        SignedTransactionClaims(
          transaction: try container.decode(JWSTransactionDecodedPayload.self, forKey: kind),
          appAccountToken: try container.decodeIfPresent(String.self, forKey: .appAccountToken)))
    case .renewalInfo:
      return .renewalInfo(
        RenewalInfoClaims(
          renewalInfo: try container.decode(JWSRenewalInfoDecodedPayload.self, forKey: kind)))
    default: return .status(try container.decode(StatusClaims.self, forKey: kind))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    switch self {
    case .notification(let claims): try container.encode(claims, forKey: .notification)
    case .transaction(let claims):
      try container.encode(claims.transaction, forKey: .transaction)
      try container.encodeIfPresent(claims.appAccountToken, forKey: .appAccountToken)
    case .renewalInfo(let claims): try container.encode(claims.renewalInfo, forKey: .renewalInfo)
    case .status(let claims): try container.encode(claims, forKey: .status)
    }
  }
}
