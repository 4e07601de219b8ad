extension LedgerView {
  /// `decide`, beside `evolve` (``LedgerState/apply(_:)``): the events a command adds to this
  /// account's state, or why it is refused. Pure: no clock (a command carries its time), no
  /// I/O. Deciding again a command the state already holds (a retry) gives the same events,
  /// which the log then recognises by their key.
  public func decide(_ command: AccountCommand) -> Result<[LedgerEvent.Body], CommandRejection> {
    switch command {
    case .debit(let debit): decide(debit)
    case .link(let link): decide(link)
    }
  }

  private func decide(_ debit: ConsumableDebited) -> Result<[LedgerEvent.Body], CommandRejection> {
    guard !debit.id.isEmpty, !debit.appAccountToken.isEmpty, !debit.productId.isEmpty else {
      return .failure(.init(.invalidCommand, "a debit needs an id, an account and a product"))
    }
    guard debit.quantity > 0 else {
      return .failure(.init(.invalidCommand, "a debit spends at least one unit"))
    }
    // Already decided under this id: a retry (the same product and quantity) gets the stored
    // one back by its key; anything else under the same id is a mistake the caller must see.
    if let known = state.debits[debit.id]?.debit {
      guard known.productId == debit.productId, known.quantity == debit.quantity else {
        return .failure(
          .init(
            .idempotencyKeyReused,
            "this Idempotency-Key was used for another debit of this account (\(known.quantity) of \(known.productId)); use a new key for a new debit"
          ))
      }
      return .success([.debit(debit)])
    }
    let balance =
      consumables(at: debit.debitedAt ?? Timestamp(milliseconds: .max))
      .first { $0.appAccountToken == debit.appAccountToken && $0.productId == debit.productId }?
      .balance ?? 0
    guard balance >= debit.quantity else {
      return .failure(.init(.insufficientBalance, "the balance does not cover the debit"))
    }
    return .success([.debit(debit)])
  }

  private func decide(_ link: AccountLinked) -> Result<[LedgerEvent.Body], CommandRejection> {
    guard !link.appAccountToken.isEmpty, !link.originalTransactionId.isEmpty else {
      return .failure(.init(.invalidCommand, "a link needs an account and a purchase chain"))
    }
    return .success([.link(link)])
  }
}
