/// StoreLedger's own grant of an entitlement to an account, given by an operator (a month of
/// "pro" after an outage or a complaint), and its end. Kept in the account's command stream
/// `acct:<appAccountToken>` as `ledger.grant.v1`: never Apple's evidence (no claims, no JWS),
/// and named as a grant wherever it decides something (rule E7, source `grant:<grantId>`).
///
/// `started` opens the grant for `[startsAt, endsAt)` (no `endsAt`: until ended); `ended`
/// closes it at `occurredAt` (an end before `startsAt` means it never held).
public struct SupportGrantEvent: Hashable, Sendable, Codable {
  public static let eventType = EventTypes.grant

  public enum Action: String, Hashable, Sendable, Codable, CaseIterable {
    case started, ended
  }

  public var action: Action
  /// The grant's id (a lower-case UUID): both events of one grant carry it.
  public var grantId: String
  public var appAccountToken: String
  public var entitlement: String
  /// `started`: when the grant begins to hold, and when it stops (nil: until ended).
  public var startsAt: Timestamp?
  public var endsAt: Timestamp?
  /// Why, in the operator's words, and who (the API key's name, or the CLI's user).
  public var reason: String
  public var by: String
  /// The bulk grant this one belongs to (its idempotency key), if any.
  public var batch: String?
  /// `started`: the catalog did not know the entitlement and the operator insisted.
  public var forced: Bool
  /// When the operator gave or ended it.
  public var occurredAt: Timestamp

  public init(
    _ action: Action, grantId: String, appAccountToken: String, entitlement: String,
    startsAt: Timestamp? = nil, endsAt: Timestamp? = nil, reason: String, by: String,
    batch: String? = nil, forced: Bool = false, occurredAt: Timestamp
  ) {
    self.action = action
    self.grantId = grantId
    self.appAccountToken = AppAccountToken.normalized(appAccountToken)
    self.entitlement = entitlement
    self.startsAt = startsAt
    self.endsAt = endsAt
    self.reason = reason
    self.by = by
    self.batch = batch
    self.forced = forced
    self.occurredAt = occurredAt
  }

  private enum Keys: String, CodingKey {
    case action, grantId, appAccountToken, entitlement, startsAt, endsAt, reason, by, batch
    case forced, occurredAt
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    action = try container.decode(Action.self, forKey: .action)
    grantId = try container.decode(String.self, forKey: .grantId)
    appAccountToken = AppAccountToken.normalized(
      try container.decode(String.self, forKey: .appAccountToken))
    entitlement = try container.decode(String.self, forKey: .entitlement)
    guard !grantId.isEmpty, !appAccountToken.isEmpty, !entitlement.isEmpty else {
      throw DecodingError.dataCorruptedError(
        forKey: .grantId, in: container,
        debugDescription: "a grant names its id, account and entitlement")
    }
    startsAt = try container.decodeIfPresent(Timestamp.self, forKey: .startsAt)
    endsAt = try container.decodeIfPresent(Timestamp.self, forKey: .endsAt)
    reason = try container.decodeIfPresent(String.self, forKey: .reason) ?? ""
    by = try container.decodeIfPresent(String.self, forKey: .by) ?? ""
    batch = try container.decodeIfPresent(String.self, forKey: .batch)
    forced = try container.decodeIfPresent(Bool.self, forKey: .forced) ?? false
    occurredAt = try container.decode(Timestamp.self, forKey: .occurredAt)
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(action, forKey: .action)
    try container.encode(grantId, forKey: .grantId)
    try container.encode(appAccountToken, forKey: .appAccountToken)
    try container.encode(entitlement, forKey: .entitlement)
    try container.encodeIfPresent(startsAt, forKey: .startsAt)
    try container.encodeIfPresent(endsAt, forKey: .endsAt)
    try container.encode(reason, forKey: .reason)
    try container.encode(by, forKey: .by)
    try container.encodeIfPresent(batch, forKey: .batch)
    if forced { try container.encode(forced, forKey: .forced) }
    try container.encode(occurredAt, forKey: .occurredAt)
  }
}
