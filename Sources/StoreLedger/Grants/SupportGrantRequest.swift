import Foundation

/// What an operator asks: give `entitlement` to an account from `startsAt` (now when nil)
/// until `endsAt` (until ended when nil), saying why. With an `idempotencyKey`, asking again
/// (a retry, a bulk grant run twice) grants once.
public struct SupportGrantRequest: Sendable, Hashable, Codable {
  public var appAccountToken: String
  public var entitlement: String
  public var startsAt: Date?
  public var endsAt: Date?
  public var reason: String
  /// Who: the API key's name, the console's key, the CLI's user.
  public var by: String
  public var idempotencyKey: String?
  /// Grant an entitlement no product of the catalog grants.
  public var force: Bool

  public init(
    appAccountToken: String, entitlement: String, startsAt: Date? = nil, endsAt: Date? = nil,
    reason: String, by: String, idempotencyKey: String? = nil, force: Bool = false
  ) {
    self.appAccountToken = appAccountToken
    self.entitlement = entitlement
    self.startsAt = startsAt
    self.endsAt = endsAt
    self.reason = reason
    self.by = by
    self.idempotencyKey = idempotencyKey
    self.force = force
  }
}
