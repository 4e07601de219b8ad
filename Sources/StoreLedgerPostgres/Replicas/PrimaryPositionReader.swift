import Synchronization

/// The primary's WAL insert position, read once for everyone who needs it at the same time.
///
/// A caller needs a position read *after* an instant (its write's commit): any reading that
/// began after that instant is at or past the commit, so concurrent callers share one
/// statement, and a finished reading stays good for every write that committed before it
/// began.
final class PrimaryPositionReader: Sendable {
  private struct Reading: Sendable {
    var started: ContinuousClock.Instant
    var task: Task<WALPosition?, Never>
  }

  private let current = Mutex<Reading?>(nil)
  private let read: @Sendable () async -> WALPosition?

  /// `read` asks the primary; nil when it does not answer.
  init(_ read: @escaping @Sendable () async -> WALPosition?) {
    self.read = read
  }

  /// A position of the primary read after `instant`; nil when the primary did not answer.
  func position(after instant: ContinuousClock.Instant) async -> WALPosition? {
    let reading = current.withLock { current in
      if let reading = current, reading.started > instant { return reading }
      let started = ContinuousClock.now
      let read = self.read
      let reading = Reading(started: started, task: Task { await read() })
      current = reading
      return reading
    }
    let position = await reading.task.value
    if position == nil {
      current.withLock { if $0?.started == reading.started { $0 = nil } }
    }
    return position
  }

  /// A position someone else read (the monitor's probe) with a statement begun at `started`.
  func offer(_ position: WALPosition, readingStartedAt started: ContinuousClock.Instant) {
    current.withLock { current in
      if let reading = current, reading.started >= started { return }
      current = Reading(started: started, task: Task { position })
    }
  }
}
