/// Which events a point-in-time fold may use.
public enum Knowledge: Hashable, Sendable {
  /// Every event.
  case everything
  /// "As Apple knew it at T": events Apple signed (or the backend issued) at or before T.
  case appleKnew(at: Timestamp)
  /// "As we knew it at T": events StoreLedger had recorded at or before T.
  case weKnew(at: Timestamp)

  /// Whether the fold may use `event`. An event without the needed time is left out of a
  /// point-in-time fold: it cannot be shown to have been known by then.
  public func admits(_ event: LedgerEvent) -> Bool {
    switch self {
    case .everything: true
    case .appleKnew(let time): event.compiled.effectiveDate.map { $0 <= time } ?? false
    case .weKnew(let time): event.recordedAt.map { $0 <= time } ?? false
    }
  }
}

extension LedgerState {
  /// Folds the events `knowledge` admits.
  public static func fold<Events: Sequence<LedgerEvent>>(
    _ events: Events, knowing knowledge: Knowledge
  ) -> LedgerState {
    var state = LedgerState()
    for event in events where knowledge.admits(event) { state.apply(event) }
    return state
  }
}
