/// `multiSeatInfo` of a transaction (API 1.23 / Notifications 2.23): present only on
/// multiseat (group) purchases, whose `quantity` is the number of seats.
public struct TransactionMultiSeatInfo: Hashable, Sendable, Codable {
  public var invitationManagement: InvitationManagement?
  /// In no guaranteed order.
  public var priceTiers: [MultiSeatPriceTier]?
  /// Seats of this transaction a seat-based refund removed; only on the purchaser's.
  public var revokedSeatQuantity: Int32?

  public init(
    invitationManagement: InvitationManagement? = nil, priceTiers: [MultiSeatPriceTier]? = nil,
    revokedSeatQuantity: Int32? = nil
  ) {
    self.invitationManagement = invitationManagement
    self.priceTiers = priceTiers
    self.revokedSeatQuantity = revokedSeatQuantity
  }
}
