import Foundation
import Logging
import Synchronization

/// Failed presentations of API keys (bearer or console sign-in), and the locks they earn. Two
/// kinds of subject lock:
/// - a named key's id takes `perKey` wrong secrets in `window`;
/// - a client address (``ClientAddress``) takes `perAddress` failed presentations of any key
///   in `window`.
/// Past that, every presentation of that id, or from that address, is refused until the lock
/// runs out, the right secret included, so a guess is worth nothing while it holds. Each lock
/// lasts twice the one before it (`window`, then 2, 4… windows, at most `longestLock`); a
/// subject with no failure for `longestLock` starts again at one window.
///
/// Presentations of no named key (a configured key, or a guess at one) lock no key — that
/// would let anyone lock the operator's keys out — but `others` of them in a window raise the
/// alarm. Each lock and alarm is logged once as a warning (the key's public id or the
/// address, never what was presented) and counted.
final class AuthenticationThrottle: Sendable {
  typealias Policy = AuthenticationLimits

  /// What a subject names, from its spelling (``subject(of:)``, ``ClientAddress``).
  enum Kind: String, Sendable {
    case namedKey = "named_key"
    case address
    case unknownKeys = "unknown_keys"

    init(_ subject: String) {
      self =
        subject.hasPrefix("key ")
        ? .namedKey : subject.hasPrefix("address ") ? .address : .unknownKeys
    }

    var locks: Bool { self != .unknownKeys }
  }

  let policy: Policy
  let logger: Logger
  let alarmed: @Sendable (Kind) -> Void

  struct Record {
    /// Failures within the window.
    var times: [ContinuousClock.Instant] = []
    /// The end of a lock, when one holds.
    var lockedUntil: ContinuousClock.Instant?
    /// Locks since the subject was last quiet for `longestLock`: the next lasts 2^locks windows.
    var locks = 0
    var lastFailure: ContinuousClock.Instant?
  }

  private let records = Mutex([String: Record]())
  /// Whether any subject was ever locked: until one is, a presentation asks no lock table.
  private let lockedOnce = Atomic(false)

  /// Whether a subject may be locked now (false only while none ever was).
  var holdsLocks: Bool { lockedOnce.load(ordering: .acquiring) }

  init(
    policy: Policy = Policy(), logger: Logger,
    alarmed: @escaping @Sendable (Kind) -> Void = { _ in }
  ) {
    self.policy = policy
    self.logger = logger
    self.alarmed = alarmed
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
    guard Kind(subject).locks else { return nil }
    return records.withLock { records in
      guard let until = records[subject]?.lockedUntil, now < until else { return nil }
      return until - now
    }
  }

  /// Notes a failed presentation of `subject`; the limit-th failure within a window locks a
  /// named key or an address, each lock twice as long as the last.
  func failed(_ subject: String, now: ContinuousClock.Instant = .now) {
    let kind = Kind(subject)
    let limit = limit(of: kind)
    let locked = records.withLock { records -> Duration? in
      forgetQuiet(&records, now: now)
      var record = records[subject] ?? Record()
      // Quiet is measured from the later of the last failure and the end of the last lock:
      // waiting out a lock is not being quiet.
      let busy = [record.lastFailure, record.lockedUntil].compactMap { $0 }.max()
      if let busy, now - busy >= policy.longestLock { record.locks = 0 }
      record.lastFailure = now
      record.times = record.times.filter { now - $0 < policy.window } + [now]
      defer { records[subject] = record }
      guard record.times.count == limit else { return nil }
      record.times = []
      guard kind.locks else { return .zero }
      let length = min(policy.window * (1 << min(record.locks, 20)), policy.longestLock)
      record.lockedUntil = now + length
      record.locks += 1
      lockedOnce.store(true, ordering: .releasing)
      return length
    }
    guard let locked else { return }
    alarmed(kind)
    let what =
      switch kind {
      case .namedKey: "a named API key is locked after repeated wrong secrets"
      case .address: "a client address is locked after repeated failed API keys"
      case .unknownKeys: "repeated presentations of unknown API keys"
      }
    var metadata: Logger.Metadata = [
      "subject": "\(subject)", "failures": "\(limit)",
      "window_seconds": "\(policy.window.components.seconds)",
    ]
    if kind.locks { metadata["locked_seconds"] = "\(locked.components.seconds)" }
    logger.warning("\(what)", metadata: metadata)
  }

  /// Subjects neither locked nor failing for `longestLock` are forgotten once the table is
  /// large, so guesses at random ids cannot grow it without end.
  private func forgetQuiet(_ records: inout [String: Record], now: ContinuousClock.Instant) {
    guard records.count > 10_000 else { return }
    records = records.filter { _, record in
      record.lockedUntil.map { now < $0 } == true
        || record.lastFailure.map { now - $0 < policy.longestLock } == true
    }
    // Still large: keep what is locked or failed in the last window.
    guard records.count > 100_000 else { return }
    records = records.filter { _, record in
      record.lockedUntil.map { now < $0 } == true
        || record.lastFailure.map { now - $0 < policy.window } == true
    }
  }

  private func limit(of kind: Kind) -> Int {
    switch kind {
    case .namedKey: policy.perKey
    case .address: policy.perAddress
    case .unknownKeys: policy.others
    }
  }
}
