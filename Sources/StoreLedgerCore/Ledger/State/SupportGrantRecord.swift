/// What the log holds of one support grant (by its id): the event that started it and the one
/// that ended it, each the earliest of its kind, so the record is the same whatever order the
/// events were folded in.
public struct SupportGrantRecord: Hashable, Sendable {
  public let grantId: String
  var startedInput: FoldInput?
  var endedInput: FoldInput?

  init(grantId: String) {
    self.grantId = grantId
  }

  static func grant(_ input: FoldInput?) -> SupportGrantEvent? {
    guard case .grant(let event)? = input?.body else { return nil }
    return event
  }

  public var started: SupportGrantEvent? { Self.grant(startedInput) }
  public var ended: SupportGrantEvent? { Self.grant(endedInput) }
  public var startSource: EventReference? { startedInput?.reference }
  public var endSource: EventReference? { endedInput?.reference }

  /// When it stops holding: its end, or when it was ended if that came first.
  public var endsAt: Timestamp? {
    switch (started?.endsAt, ended?.occurredAt) {
    case (let end?, let stop?): min(end, stop)
    case (let end?, nil): end
    case (nil, let stop?): stop
    case (nil, nil): nil
    }
  }

  /// Whether it holds at `time`: started by then, not yet at its end. An end recorded after
  /// `time` does not count before it was recorded.
  public func holds(at time: Timestamp) -> Bool {
    guard let started, let from = started.startsAt ?? Optional(started.occurredAt),
      from <= time, started.occurredAt <= time
    else { return false }
    if let end = started.endsAt, time >= end { return false }
    if let ended, ended.occurredAt <= time { return false }
    return true
  }

  mutating func absorb(_ input: FoldInput) {
    guard let event = Self.grant(input) else { return }
    switch event.action {
    case .started: if startedInput.map({ input.precedes($0) }) ?? true { startedInput = input }
    case .ended: if endedInput.map({ input.precedes($0) }) ?? true { endedInput = input }
    }
  }
}
