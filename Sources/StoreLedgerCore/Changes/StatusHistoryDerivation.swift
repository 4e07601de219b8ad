/// A status history part-way through an account's events, taken in the order their news
/// happened (``StatusHistory``): the derivation after the last event taken, with the entries up
/// to it. Events that happened after every one taken continue it, so a projector that keeps it
/// folds one new event instead of the account's whole log; ``history(through:)`` ends it at an
/// instant without changing it. ``StatusHistory/derive(token:catalog:options:events:through:)``
/// is this from the start, so both give the same entries by construction.
public struct StatusHistoryDerivation: Sendable {
  /// An event's place in the order: when its news happened, its recording, its key.
  public struct Place: Comparable, Sendable {
    let at: Timestamp
    let recorded: Timestamp
    let key: String

    public static func < (lhs: Place, rhs: Place) -> Bool {
      (lhs.at, lhs.recorded, lhs.key) < (rhs.at, rhs.recorded, rhs.key)
    }
  }

  public let token: String
  private var derivation: ChangeDerivation
  private var entries: [StatusTransitionRow] = []
  /// The latest recording among the events taken.
  private var learned: Timestamp?
  /// The place of the last event taken; nil before the first.
  public private(set) var last: Place?
  /// How many events were taken.
  public private(set) var taken = 0
  /// False once an event without a recording was taken: its place depended on the instant
  /// asked about, so later events cannot continue it.
  public private(set) var continuable = true

  public init(token: String, catalog: ProductCatalog = .empty, options: ProjectionOptions = .init())
  {
    self.token = token
    self.derivation = ChangeDerivation(
      token: token, catalog: catalog, options: options, scope: .statuses)
  }

  /// Where `event` goes in the order, its recording standing in for a missing one.
  public static func place(of event: LedgerEvent, recordedBy fallback: Timestamp) -> Place {
    let recorded = event.recordedAt ?? fallback
    return Place(
      at: StatusHistory.happened(event, by: recorded), recorded: recorded, key: event.key ?? "")
  }

  /// Whether `events` can follow those taken: every one recorded, and none placed before the
  /// last taken (an equal place follows, as the whole derivation orders ties by position).
  public func canContinue(with events: some Sequence<LedgerEvent>) -> Bool {
    continuable
      && events.allSatisfy { event in
        guard let recorded = event.recordedAt else { return false }
        return last.map { Self.place(of: event, recordedBy: recorded) >= $0 } ?? true
      }
  }

  /// Takes `events` in their order (ties keep the order given); each must be placed at or
  /// after the last taken (``canContinue(with:)``), or the history is not the log's.
  public mutating func take(_ events: [LedgerEvent], recordedBy fallback: Timestamp) {
    let placed = events.enumerated().map { index, event in
      (index: index, event: event, place: Self.place(of: event, recordedBy: fallback))
    }.sorted { ($0.place, $0.index) < ($1.place, $1.index) }
    if events.contains(where: { $0.recordedAt == nil }) { continuable = false }
    for step in placed {
      // The clock's steps strictly before the event; one at its very instant gives way to it
      // (a failed renewal signed at the period's end is billing retry, never a moment expired).
      let before = derivation.advance(
        to: Timestamp(milliseconds: step.place.at.milliseconds - 1))
      keep(before, recordedAt: nil)
      let recorded = learned.map { max($0, step.place.recorded) } ?? step.place.recorded
      learned = recorded
      keep(derivation.apply(step.event, at: step.place.at, eventFirst: true), recordedAt: recorded)
      last = step.place
      taken += 1
    }
  }

  /// The history through `horizon`: the entries so far and the clock's steps after the last
  /// event up to `horizon`. The derivation itself stays after its last event.
  public func history(through horizon: Timestamp) -> [StatusTransitionRow] {
    var ended = self
    let steps = ended.derivation.advance(to: horizon)
    ended.keep(steps, recordedAt: nil)
    return ended.entries
  }

  /// Keeps the status entries of `derived`, recorded at `recordedAt` (an event's), or, for the
  /// clock's steps (nil), once the step has passed and the events before it were recorded.
  private mutating func keep(_ derived: [DerivedChange], recordedAt: Timestamp?) {
    for item in derived where item.change.kind == .subscriptionStatusChanged {
      guard let to = item.change.new.flatMap({ Int32($0) }) else { continue }
      entries.append(
        StatusTransitionRow(
          ordinal: entries.count, appAccountToken: token,
          originalTransactionId: item.change.subject,
          from: item.change.old.flatMap { Int32($0) }, to: to, effectiveAt: item.effectiveAt,
          recordedAt: recordedAt ?? learned.map { max($0, item.occurredAt) } ?? item.occurredAt,
          cause: item.cause))
    }
  }
}
