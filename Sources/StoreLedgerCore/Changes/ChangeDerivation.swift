/// One derived change with the instant of the step that derived it, when it took effect by
/// Apple's data, and what caused it.
public struct DerivedChange: Hashable, Sendable {
  public var change: AccountChange
  /// The derivation's instant (O2): orders the feed's appends, never a window.
  public var occurredAt: Timestamp
  /// When it took effect (``ChangeEffectiveTime``), at or before ``occurredAt``.
  public var effectiveAt: Timestamp
  /// The key of the event that caused it; nil when the clock did (a period ended).
  public var cause: String?

  public init(
    _ change: AccountChange, occurredAt: Timestamp, effectiveAt: Timestamp? = nil, cause: String?
  ) {
    self.change = change
    self.occurredAt = occurredAt
    self.effectiveAt = effectiveAt ?? occurredAt
    self.cause = cause
  }
}

/// Derives one account's changes step by step: each event is folded at its instant and the
/// account's snapshots before and after it are compared; between events, every instant at
/// which the answers change by the clock (the view's stable interval ends) is a step too.
///
/// Instants never go back: an event is taken at the later of its own instant and the last
/// step's, so the derivation is a function of the steps' order alone, and resuming from a
/// saved ``state`` and ``instant`` gives exactly what deriving from the start gives.
public struct ChangeDerivation: Sendable {
  /// Which of the account's answers are compared at each step.
  public enum Scope: Sendable {
    /// Every change of projections/changes.md: what the feed tells.
    case everything
    /// Only the subscriptions' statuses (``AccountChange/Kind/subscriptionStatusChanged`` and
    /// the billing and grace changes beside it): what the status history keeps. Each step
    /// evaluates the subscriptions alone, as the status of a subscription depends on no
    /// other answer, so it derives exactly the status changes ``everything`` derives.
    case statuses
  }

  public let token: String
  public let catalog: ProductCatalog
  public let options: ProjectionOptions
  public let scope: Scope
  public private(set) var state: LedgerState
  /// The instant of the last step; nil before the first event.
  public private(set) var instant: Timestamp?
  /// The purchase of each refund request opened so far, by request id.
  public private(set) var requests: [String: String]
  private var cached: (view: LedgerView, at: Timestamp, snapshot: LedgerSnapshot)?
  /// The next clock instant after `at` for the current state (a walk over every record).
  private var clock: (at: Timestamp, until: Timestamp?)?

  public init(
    token: String, catalog: ProductCatalog = .empty, options: ProjectionOptions = .init(),
    scope: Scope = .everything, state: LedgerState = LedgerState(), instant: Timestamp? = nil,
    requests: [String: String] = [:]
  ) {
    self.token = token
    self.catalog = catalog
    self.options = options
    self.scope = scope
    self.state = state
    self.instant = instant
    self.requests = requests
  }

  /// A derivation resumed after `steps` (already taken) at `instant`.
  public init(
    token: String, catalog: ProductCatalog = .empty, options: ProjectionOptions = .init(),
    after steps: some Sequence<AccountStep>, instant: Timestamp?
  ) {
    var requests: [String: String] = [:]
    var events: [LedgerEvent] = []
    for step in steps {
      switch step {
      case .ledger(let event): events.append(event)
      case .consumption(.requested(let requested), let request, _):
        requests[request] = requested.transactionId
      case .consumption: break
      }
    }
    self.init(
      token: token, catalog: catalog, options: options, state: LedgerState.fold(events),
      instant: instant, requests: requests)
  }

  /// The changes up to and of `step`, taken at `time` (or the last step's instant when later).
  public mutating func apply(_ step: AccountStep, at time: Timestamp) -> [DerivedChange] {
    switch step {
    case .ledger(let event):
      return apply(event, at: time)
    case .consumption(let event, let request, let key):
      let at = max(time, instant ?? time)
      var derived = advance(to: at)
      instant = at
      if let change = ConsumptionChanges.change(
        of: event, request: request, account: token, transactions: &requests)
      {
        derived.append(
          DerivedChange(
            change, occurredAt: at, effectiveAt: ChangeEffectiveTime.of(event, at: at), cause: key))
      }
      return derived
    }
  }

  /// The next instant at which the clock changes the answers; nil when nothing is due.
  public mutating func nextClockInstant() -> Timestamp? {
    guard let instant else { return nil }
    if let clock, clock.at == instant { return clock.until }
    let until = view().stableInterval(around: instant).until
    clock = (instant, until)
    return until
  }

  /// The clock's changes at every instant after the last step up to `time` (included).
  public mutating func advance(to time: Timestamp) -> [DerivedChange] {
    var derived: [DerivedChange] = []
    while let last = instant, let next = nextClockInstant(), next <= time {
      let before = snapshot(at: last)
      let after = snapshot(at: next)
      instant = next
      derived += changes(before, after).map {
        DerivedChange(
          $0, occurredAt: next, effectiveAt: ChangeEffectiveTime.ofClock(at: next), cause: nil)
      }
    }
    return derived
  }

  /// The changes up to and of `event`, taken at `time` (or the last step's instant when later).
  /// The clock's steps at that very instant come first (O3), unless `eventFirst`: then the
  /// event is taken just before them, as Apple's data dated at a period's end says what became
  /// of the period (the status history's rule H2).
  public mutating func apply(_ event: LedgerEvent, at time: Timestamp, eventFirst: Bool = false)
    -> [DerivedChange]
  {
    let at = max(time, instant ?? time)
    let edge = eventFirst ? max(Timestamp(milliseconds: at.milliseconds - 1), instant ?? at) : at
    var derived = advance(to: edge)
    let before = snapshot(at: edge)
    let key = event.compiled.transactionFacts?.key
    let previous = key.flatMap { state.transactions[$0] }
    // A link that makes a purchase chain the account's brings its money with it (C24–C32).
    var linked: String?
    if scope == .everything, case .link(let link) = event.body {
      let chain = link.originalTransactionId
      if let record = state.transactions.values.first(where: {
        $0.facts.originalTransactionId == chain
      }), !holds(record, at: at) {
        linked = chain
      }
    }
    state.apply(event)
    cached = nil
    clock = nil
    instant = at
    let after = snapshot(at: at)
    let found = changes(before, after)
    let folded = state
    let times = ChangeEffectiveTime.of(
      found, causedBy: event, after: after,
      purchased: { id in
        folded.transactions.values.first { $0.facts.transactionId == id }?.facts.purchaseDate
      }, at: at)
    var derivedHere = zip(found, times).map {
      DerivedChange($0, occurredAt: at, effectiveAt: $1, cause: event.key)
    }
    guard scope == .everything else { return derived + derivedHere }
    // Money changes take effect when their own transaction was bought or revoked (T2, T3).
    func money(_ record: TransactionRecord, previous: TransactionRecord?) -> [DerivedChange] {
      MoneyChanges.changes(previous: previous, now: record, state: state, account: token).map {
        DerivedChange(
          $0, occurredAt: at,
          effectiveAt: ChangeEffectiveTime.of($0, of: record.facts, causedBy: event, at: at),
          cause: event.key)
      }
    }
    if let key, let record = state.transactions[key], holds(record, at: at) {
      derivedHere += money(record, previous: previous)
    }
    if let linked {
      let records = state.transactions.values.filter {
        $0.facts.originalTransactionId == linked
      }.sorted {
        ($0.facts.purchaseDate?.milliseconds ?? .min, $0.facts.transactionId)
          < ($1.facts.purchaseDate?.milliseconds ?? .min, $1.facts.transactionId)
      }
      if let first = records.first, holds(first, at: at) {
        for record in records { derivedHere += money(record, previous: nil) }
      }
    }
    return derived + derivedHere
  }

  private mutating func view() -> LedgerView {
    if let cached { return cached.view }
    let view = LedgerView(state, catalog: catalog, options: options)
    let at = instant ?? Timestamp(milliseconds: 0)
    cached = (view, at, snapshot(of: view, at: at))
    return view
  }

  private func snapshot(of view: LedgerView, at time: Timestamp) -> LedgerSnapshot {
    switch scope {
    case .everything: view.snapshot(at: time)
    case .statuses:
      // The account's own subscriptions: all ``changes(_:_:)`` and the effective times read.
      LedgerSnapshot(
        asOf: time,
        subscriptions: view.subscriptions(at: time).filter { $0.appAccountToken == token },
        purchases: [], consumables: [], revocations: [], entitlements: [])
    }
  }

  private mutating func snapshot(at time: Timestamp) -> LedgerSnapshot {
    let view = view()
    if let cached, cached.at == time { return cached.snapshot }
    // Every answer holds from the cached instant until the next clock instant (the stable
    // interval's contract): a later time before it needs no new snapshot.
    if let cached, let clock, clock.at == cached.at, cached.at < time,
      clock.until.map({ time < $0 }) ?? true
    {
      var snapshot = cached.snapshot
      snapshot.asOf = time
      return snapshot
    }
    let snapshot = snapshot(of: view, at: time)
    cached = (view, time, snapshot)
    return snapshot
  }

  /// The differences of the account's parts of the two snapshots: an item that becomes the
  /// account's (a link names it) is new to the account then, one that leaves is gone; with
  /// the money beside a renewal turned off and an expiry (C30, C31).
  private func changes(_ before: LedgerSnapshot, _ after: LedgerSnapshot) -> [AccountChange] {
    func stamped(_ changes: [AccountChange]) -> [AccountChange] {
      changes.map { change in
        var change = change
        change.appAccountToken = token
        return change
      }
    }
    // The statuses scope's snapshots hold the account's subscriptions already.
    if scope == .statuses { return stamped(AccountChanges.statuses(before: before, after: after)) }
    let part = after.part(for: token)
    let found = stamped(AccountChanges.diff(before: before.part(for: token), after: part))
    return found
      + MoneyChanges.companions(of: found, state: state, after: part, account: token)
  }

  /// Whether the purchase chain of `record` is this account's at `time`.
  private mutating func holds(_ record: TransactionRecord, at time: Timestamp) -> Bool {
    let view = view()
    let chain = record.facts.originalTransactionId
    let records = view.chains[chain]?.transactions ?? [record]
    return view.accountToken(ofChain: chain, records: records, at: time) == token
  }
}
