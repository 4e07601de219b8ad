import Foundation
import Logging
import Synchronization

/// Failed presentations of API keys (bearer or console sign-in), and the named keys they lock:
/// a named key's id takes `perKey` failed secrets in `window`; past that, every presentation
/// of that id is refused for `window` after its last failure, the right secret included, so a
/// guess is worth nothing while it is locked. Presentations that name no key id (a configured
/// key, or a guess at one) lock nothing — that would let anyone lock the operator's keys out —
/// but `others` of them in a window raise the same alarm. Each lock and alarm is logged once as
/// a warning (the key's public id, never what was presented) and counted.
final class AuthenticationThrottle: Sendable {
  struct Policy: Sendable {
    var window: Duration = .seconds(60)
    var perKey = 10
    var others = 100
  }

  let policy: Policy
  let logger: Logger
  let lockedCounter: @Sendable (String) -> Void

  struct Record {
    /// Failures within the window.
    var times: [ContinuousClock.Instant] = []
    /// The end of a lock, when one holds.
    var lockedUntil: ContinuousClock.Instant?
  }

  private let records = Mutex([String: Record]())

  init(
    policy: Policy = Policy(), logger: Logger,
    locked: @escaping @Sendable (String) -> Void = { _ in }
  ) {
    self.policy = policy
    self.logger = logger
    self.lockedCounter = locked
  }

  /// The subject of a presented key: its public id for a named key, else every other key.
  static func subject(of presented: String) -> String {
    let parts = presented.split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
    if parts.count == 3, parts[0] == "slk", parts[1].count == 16,
      parts[1].allSatisfy({ $0.isHexDigit })
    {
      return "key " + parts[1]
    }
    return "other keys"
  }

  /// How long `subject` stays locked; nil when it is not.
  func lockedFor(_ subject: String, now: ContinuousClock.Instant = .now) -> Duration? {
    guard subject.hasPrefix("key ") else { return nil }
    return records.withLock { records in
      guard let until = records[subject]?.lockedUntil else { return nil }
      guard now < until else {
        records[subject] = nil
        return nil
      }
      return until - now
    }
  }

  /// Notes a failed presentation of `subject`; the limit-th failure within a window locks a
  /// named key until a window after it.
  func failed(_ subject: String, now: ContinuousClock.Instant = .now) {
    let alarm = records.withLock { records -> Bool in
      // Subjects with nothing in the last window are forgotten, so guesses at random ids
      // cannot grow the table without end.
      if records.count > 10_000 {
        records = records.filter { _, record in
          record.lockedUntil.map { now < $0 }
            ?? record.times.last.map { now - $0 < policy.window } ?? false
        }
      }
      var record = records[subject] ?? Record()
      record.times = record.times.filter { now - $0 < policy.window } + [now]
      let reached = record.times.count == limit(of: subject)
      if reached, subject.hasPrefix("key ") {
        record.lockedUntil = now + policy.window
        record.times = []
      }
      records[subject] = record
      return reached
    }
    if alarm {
      lockedCounter(subject)
      logger.warning(
        subject.hasPrefix("key ")
          ? "a named API key is locked after repeated wrong secrets"
          : "repeated presentations of unknown API keys",
        metadata: [
          "subject": "\(subject)", "failures": "\(limit(of: subject))",
          "seconds": "\(policy.window.components.seconds)",
        ])
    }
  }

  private func limit(of subject: String) -> Int {
    subject.hasPrefix("key ") ? policy.perKey : policy.others
  }
}
