/// One backend debit, kept once per id.
public struct DebitRecord: Hashable, Sendable {
  public var debit: ConsumableDebited
  let input: FoldInput

  public var source: EventReference { input.reference }

  /// Two debits with one id are one command; should their contents differ, the same one is
  /// kept whatever the order.
  func supersedes(_ other: DebitRecord) -> Bool {
    let mine = (debit.debitedAt?.milliseconds ?? .max, debit.quantity)
    let theirs = (other.debit.debitedAt?.milliseconds ?? .max, other.debit.quantity)
    if mine != theirs { return mine < theirs }
    let names = (debit.appAccountToken, debit.productId)
    let otherNames = (other.debit.appAccountToken, other.debit.productId)
    if names != otherNames { return names < otherNames }
    return input.ordersAfter(other.input)
  }
}
