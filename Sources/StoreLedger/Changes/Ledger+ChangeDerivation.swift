import Foundation
import StoreLedgerCore
import StoreLedgerPostgres

extension Ledger {
  /// How long after an instant the clock's changes at it are derived: an append that began
  /// before the instant and has not committed yet must still be taken first, as a derivation
  /// from the log would take it (projections/changes.md, "Order").
  static let changeSettling = Duration.milliseconds(300)

  /// Derives the new changes of `accounts` and appends them to the feed (one statement);
  /// accounts another projector derived first append nothing.
  func appendChanges(of accounts: [String: AccountInput], now: Date) async throws {
    let horizon = Timestamp(now.addingTimeInterval(-Self.seconds(Self.changeSettling)))
    let derived = accounts.sorted { $0.key < $1.key }.compactMap { token, account in
      derivedChanges(of: token, account, through: horizon)
    }
    guard !derived.isEmpty else { return }
    let (client, logger) = (self.client, self.logger)
    let moved = try await withDatabase {
      try await ChangeFeed.append(derived, on: client, logger: logger)
    }
    if derived.contains(where: { moved.contains($0.token) && !$0.changes.isEmpty }) {
      changesAppended.signal()
    }
  }

  /// The account's changes from where its derivation stands (the start when `input` has no
  /// marker) through `horizon`; nil when there is nothing to record.
  func derivedChanges(of token: String, _ input: AccountInput, through horizon: Timestamp)
    -> ChangeFeed.Derived?
  {
    let steps = input.derivationSteps
    let marker = input.derivation
    let done = Int(marker.events ?? 0)
    guard done <= steps.count else { return nil }
    var derivation = ChangeDerivation(
      token: token, catalog: configuration.catalog, options: configuration.options,
      state: LedgerState.fold(steps[..<done].map(\.event)),
      instant: marker.instant.map(Timestamp.init(milliseconds:)))
    var changes: [DerivedChange] = []
    var limit = horizon
    var taken = done
    for step in steps[done...] {
      guard step.settled else {
        limit = min(limit, step.instant)
        break
      }
      changes += derivation.apply(step.event, at: step.instant)
      taken += 1
    }
    changes += derivation.advance(to: limit)
    let instant = derivation.instant
    if taken == done, changes.isEmpty, instant?.milliseconds == marker.instant,
      marker.version != nil
    {
      return nil
    }
    return ChangeFeed.Derived(
      token: token, expectedVersion: marker.version ?? 0, events: Int64(taken), instant: instant,
      due: derivation.nextClockInstant(), firstOrdinal: marker.changes ?? 0, changes: changes)
  }

  static func seconds(_ duration: Duration) -> TimeInterval {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }
}
