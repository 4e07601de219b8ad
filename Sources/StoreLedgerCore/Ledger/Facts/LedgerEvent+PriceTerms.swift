extension LedgerEvent.Body {
  /// The same facts without ``PriceTerms``: what a row of an event type `*.v2` stored of the
  /// same claims (the audit compares such rows with this).
  public func withoutTerms() -> LedgerEvent.Body {
    switch self {
    case .notification(var facts):
      facts.transaction = facts.transaction?.withoutTerms()
      facts.renewal = facts.renewal?.withoutTerms()
      return .notification(facts)
    case .transaction(var seen):
      seen.transaction = seen.transaction.withoutTerms()
      return .transaction(seen)
    case .renewal(let facts): return .renewal(facts.withoutTerms())
    case .status(var facts):
      facts.transaction = facts.transaction?.withoutTerms()
      facts.renewal = facts.renewal?.withoutTerms()
      return .status(facts)
    case .debit, .link, .seat, .grant: return self
    }
  }
}

extension LedgerEvent.Body {
  /// The same facts without the members facts gained in 2026 (``TransactionPlan``,
  /// ``RenewalPlan``, appTransactionIds): what a row stored before kept of the same claims
  /// (the audit accepts such rows by this).
  public func withoutLaterMembers() -> LedgerEvent.Body {
    switch self {
    case .notification(var facts):
      facts.transaction = facts.transaction?.withoutLaterMembers()
      facts.renewal = facts.renewal?.withoutLaterMembers()
      facts.appTransactionId = nil
      return .notification(facts)
    case .transaction(var seen):
      seen.transaction = seen.transaction.withoutLaterMembers()
      return .transaction(seen)
    case .renewal(let facts): return .renewal(facts.withoutLaterMembers())
    case .status(var facts):
      facts.transaction = facts.transaction?.withoutLaterMembers()
      facts.renewal = facts.renewal?.withoutLaterMembers()
      return .status(facts)
    case .debit, .link, .seat, .grant: return self
    }
  }
}

extension LedgerEvent.Body {
  /// The same facts without transactions' `transactionReason`: what a row stored with the
  /// 2026 members, before the reason was kept, holds of the same claims (the audit accepts
  /// such rows by this).
  public func withoutTransactionReason() -> LedgerEvent.Body {
    switch self {
    case .notification(var facts):
      facts.transaction = facts.transaction?.withoutTransactionReason()
      return .notification(facts)
    case .transaction(var seen):
      seen.transaction = seen.transaction.withoutTransactionReason()
      return .transaction(seen)
    case .status(var facts):
      facts.transaction = facts.transaction?.withoutTransactionReason()
      return .status(facts)
    case .renewal, .debit, .link, .seat, .grant: return self
    }
  }
}
