import Foundation
import StoreLedgerCore

/// One operator's grant as support reads it: what, for whom, for when, who gave it and why,
/// and where it stands at the time asked.
public struct SupportGrantStatus: Sendable, Hashable, Encodable {
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(grantId, forKey: .grantId)
    try container.encode(appAccountToken, forKey: .appAccountToken)
    try container.encode(entitlement, forKey: .entitlement)
    try container.encode(state, forKey: .state)
    try container.encode(startsAt, forKey: .startsAt)
    try container.encode(endsAt, forKey: .endsAt)
    try container.encode(grantedAt, forKey: .grantedAt)
    try container.encode(grantedBy, forKey: .grantedBy)
    try container.encode(reason, forKey: .reason)
    try container.encode(batch, forKey: .batch)
    try container.encode(forced, forKey: .forced)
    try container.encode(endedAt, forKey: .endedAt)
    try container.encode(endedBy, forKey: .endedBy)
    try container.encode(endReason, forKey: .endReason)
  }

  private enum Keys: String, CodingKey {
    case grantId, appAccountToken, entitlement, state, startsAt, endsAt, grantedAt, grantedBy
    case reason, batch, forced, endedAt, endedBy, endReason
  }

  public enum State: String, Sendable, Hashable, Encodable {
    /// Starts later.
    case scheduled
    case active
    /// Its period ran out.
    case expired
    /// An operator ended it.
    case ended
  }

  public var grantId: String
  public var appAccountToken: String
  public var entitlement: String
  public var state: State
  /// Instants are Unix milliseconds when encoded, as everywhere in the API.
  public var startsAt: Timestamp
  /// nil: until ended.
  public var endsAt: Timestamp?
  public var grantedAt: Timestamp
  public var grantedBy: String
  public var reason: String
  public var batch: String?
  public var forced: Bool
  public var endedAt: Timestamp?
  public var endedBy: String?
  public var endReason: String?

  init?(_ record: SupportGrantRecord, at time: Timestamp) {
    guard let started = record.started else { return nil }
    grantId = record.grantId
    appAccountToken = started.appAccountToken
    entitlement = started.entitlement
    startsAt = started.startsAt ?? started.occurredAt
    endsAt = started.endsAt
    grantedAt = started.occurredAt
    grantedBy = started.by
    reason = started.reason
    batch = started.batch
    forced = started.forced
    let ended = record.ended.flatMap { $0.occurredAt <= time ? $0 : nil }
    endedAt = ended?.occurredAt
    endedBy = ended?.by
    endReason = ended?.reason
    if record.holds(at: time) {
      state = .active
    } else if let ended, started.endsAt.map({ ended.occurredAt < $0 }) ?? true {
      state = .ended
    } else if time < (started.startsAt ?? started.occurredAt) {
      state = .scheduled
    } else {
      state = .expired
    }
  }
}
