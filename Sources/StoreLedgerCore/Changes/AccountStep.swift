/// One event of an account's log as its change derivation takes it: a ledger event (folded
/// into the account's state), or an event of a refund request about one of its purchases (the
/// request's own stream, joined to the account when Apple's CONSUMPTION_REQUEST arrived).
public enum AccountStep: Hashable, Sendable {
  case ledger(LedgerEvent)
  /// `request`: the request's id (its stream's; later events do not repeat it).
  case consumption(ConsumptionEvent, request: String, key: String?)

  public var ledgerEvent: LedgerEvent? {
    if case .ledger(let event) = self { event } else { nil }
  }
}
