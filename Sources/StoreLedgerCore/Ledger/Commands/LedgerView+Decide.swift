import Foundation

extension LedgerView {
  /// `decide`, beside `evolve` (``LedgerState/apply(_:)``): the events a command adds to this
  /// account's state, or why it is refused. Pure: no clock (a command carries its time), no
  /// I/O. Deciding again a command the state already holds (a retry) gives the same events,
  /// which the log then recognises by their key.
  public func decide(_ command: AccountCommand) -> Result<[LedgerEvent.Body], CommandRejection> {
    switch command {
    case .debit(let debit): decide(debit)
    case .link(let link): decide(link)
    case .grant(let grant): decide(grant)
    }
  }

  /// A grant starts once under its id: the same grant again is a retry; another one under the
  /// same id is refused. Ending needs a started grant of this account; ending it again changes
  /// nothing (the log recognises the end's key).
  private func decide(_ grant: SupportGrantEvent) -> Result<[LedgerEvent.Body], CommandRejection> {
    guard !grant.grantId.isEmpty, !grant.appAccountToken.isEmpty, !grant.entitlement.isEmpty
    else {
      return .failure(.init(.invalidCommand, "a grant needs an id, an account and an entitlement"))
    }
    guard !grant.reason.trimmingCharacters(in: .whitespaces).isEmpty else {
      return .failure(.init(.invalidCommand, "a grant says why (`reason`): it is kept in the log"))
    }
    let known = state.supportGrants[grant.grantId]
    switch grant.action {
    case .started:
      let from = grant.startsAt ?? grant.occurredAt
      if let end = grant.endsAt, end <= from {
        return .failure(
          .init(
            .rangeReversed,
            "the grant's period ends before it starts: `endsAt` must be later than `startsAt`"))
      }
      if let started = known?.started {
        // The key names the grant: asked again (a retry, a bulk grant run again, a period
        // given in days from now), the first grant stands. Another entitlement is a mistake.
        guard started.appAccountToken == grant.appAccountToken,
          started.entitlement == grant.entitlement
        else {
          return .failure(
            .init(
              .idempotencyKeyReused,
              "this idempotency key already granted \(started.entitlement) to this account; use a new key for a new grant"
            ))
        }
        return .success([.grant(started)])
      }
      guard grant.forced || catalog.grantedEntitlements.contains(grant.entitlement) else {
        let names = catalog.grantedEntitlements.sorted().joined(separator: ", ")
        return .failure(
          .init(
            .unknownEntitlement,
            "no product of the catalog grants “\(grant.entitlement)” (it knows: \(names.isEmpty ? "none" : names)); check the name, or grant it anyway with force"
          ))
      }
      return .success([.grant(grant)])
    case .ended:
      guard let started = known?.started, started.appAccountToken == grant.appAccountToken else {
        return .failure(.init(.unknownGrant, "this account holds no grant \(grant.grantId)"))
      }
      var end = grant
      end.entitlement = started.entitlement
      return .success([.grant(known?.ended ?? end)])
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
