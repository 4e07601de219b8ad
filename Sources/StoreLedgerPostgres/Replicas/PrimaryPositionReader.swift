import Synchronization

/// The primary's WAL insert position, read once for everyone who needs it at the same time.
///
/// A caller needs a position read *after* an instant (its write's commit): any reading that
/// began after that instant is at or past the commit, so concurrent callers share one
/// statement, and a finished reading stays good for every write that committed before it
/// began. The caller that starts a reading runs it in its own task; the others wait for its
/// answer.
final class PrimaryPositionReader: Sendable {
  /// One reading of the position: in flight until `answer` is set.
  private final class Reading: Sendable {
    struct State {
      /// Nil while the statement runs; then the position (nil: the primary did not answer).
      var answer: WALPosition??
      var waiters: [CheckedContinuation<WALPosition?, Never>] = []
    }

    let started: ContinuousClock.Instant
    let state: Mutex<State>

    init(started: ContinuousClock.Instant, answer: WALPosition?? = nil) {
      self.started = started
      self.state = Mutex(State(answer: answer))
    }

    /// Its answer, once it has one.
    func value() async -> WALPosition? {
      await withCheckedContinuation { continuation in
        let answer = state.withLock { state -> WALPosition?? in
          if let answer = state.answer { return answer }
          state.waiters.append(continuation)
          return nil
        }
        if let answer { continuation.resume(returning: answer) }
      }
    }

    func answer(_ position: WALPosition?) {
      let waiters = state.withLock { state in
        state.answer = .some(position)
        defer { state.waiters = [] }
        return state.waiters
      }
      for waiter in waiters { waiter.resume(returning: position) }
    }
  }

  private let current = Mutex<Reading?>(nil)
  private let read: @Sendable () async -> WALPosition?

  /// `read` asks the primary; nil when it does not answer.
  init(_ read: @escaping @Sendable () async -> WALPosition?) {
    self.read = read
  }

  /// A position of the primary read after `instant`; nil when the primary did not answer.
  func position(after instant: ContinuousClock.Instant) async -> WALPosition? {
    let (reading, reads) = current.withLock { current in
      if let reading = current, reading.started > instant { return (reading, false) }
      let reading = Reading(started: .now)
      current = reading
      return (reading, true)
    }
    guard reads else { return await reading.value() }
    let position = await read()
    reading.answer(position)
    if position == nil {
      current.withLock { if $0 === reading { $0 = nil } }
    }
    return position
  }

  /// A position someone else read (the monitor's probe) with a statement begun at `started`.
  func offer(_ position: WALPosition, readingStartedAt started: ContinuousClock.Instant) {
    current.withLock { current in
      if let reading = current, reading.started >= started { return }
      current = Reading(started: started, answer: .some(position))
    }
  }
}
