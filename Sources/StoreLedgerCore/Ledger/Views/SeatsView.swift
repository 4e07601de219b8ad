/// The seats of a multiseat (group) subscription's current period (reference §8.13): the
/// seats bought (Σ `quantity` over the period's transactions, seat additions included), those
/// a seat refund revoked, and, for developer-hosted invitations, the claims the ledger holds.
public struct SeatsView: Hashable, Sendable, Encodable {
  /// `APPLE` or `DEVELOPER`.
  public var invitationManagement: String?
  /// Seats in force: bought minus revoked.
  public var total: Int64
  /// Seats a refund took away (`revokedSeatQuantity`, and every seat of a transaction
  /// refunded whole).
  public var revoked: Int64
  /// Seat claims in force (developer-hosted invitations).
  public var claimed: Int64
  /// Seats free to claim (never below zero).
  public var available: Int64
  /// Seats that will renew (the newest renewal info's `renewalQuantity`).
  public var renewalQuantity: Int32?
  /// Claims beyond the seats in force, newest claims first: after a renewal with fewer seats
  /// (a renewal never releases a claim) they stay until the operator releases some.
  public var overClaimed: [String]
  /// The transactions of the current period (several after seat additions).
  public var transactionIds: [String]

  public init(
    invitationManagement: String?, total: Int64, revoked: Int64, claimed: Int64,
    renewalQuantity: Int32?, overClaimed: [String], transactionIds: [String]
  ) {
    self.invitationManagement = invitationManagement
    self.total = total
    self.revoked = revoked
    self.claimed = claimed
    self.available = max(0, total - claimed)
    self.renewalQuantity = renewalQuantity
    self.overClaimed = overClaimed
    self.transactionIds = transactionIds
  }
}

extension SeatsView {
  /// Every member, `null` when absent (as the stored views write it).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: JSONKey.self)
    try container.encode(invitationManagement, forKey: "invitationManagement")
    try container.encode(total, forKey: "total")
    try container.encode(revoked, forKey: "revoked")
    try container.encode(claimed, forKey: "claimed")
    try container.encode(available, forKey: "available")
    try container.encode(renewalQuantity, forKey: "renewalQuantity")
    try container.encode(overClaimed, forKey: "overClaimed")
    try container.encode(transactionIds, forKey: "transactionIds")
  }
}
