import Foundation
import StoreLedgerCore
import StoreLedgerPostgres

extension AccountViewWriter {
  /// How long after an instant the clock's changes at it are derived: an append that began
  /// before the instant and has not committed yet must still be taken first, as a derivation
  /// from the log would take it (projections/changes.md, "Order").
  static let changeSettling = Duration.milliseconds(300)

  /// One account's derivation: its new changes (nil when there is nothing to record) and,
  /// when every one of its events has been taken, its state (the fold of all its events; the
  /// fold does not depend on their order, so its view needs no fold of its own).
  struct AccountDerivation {
    var derived: DerivedAccountChanges?
    var state: LedgerState?
  }

  /// The instant up to which the clock's changes are derived at `now`.
  static func changeHorizon(at now: Date) -> Timestamp {
    Timestamp(now.addingTimeInterval(-changeSettling.timeInterval))
  }

  /// Appends the accounts' new changes to the feed (one statement); accounts another
  /// projector derived first append nothing.
  func appendChanges(_ derived: [DerivedAccountChanges]) async throws {
    guard !derived.isEmpty else { return }
    let moved = try await views.appendChanges(derived)
    if derived.contains(where: { moved.contains($0.token) && !$0.changes.isEmpty }) {
      changesAppended.signal()
    }
  }

  /// The account's changes from where its derivation stands (the start when `input` has no
  /// marker) through `horizon`; nil when there is nothing to record.
  func derivedChanges(of token: String, _ input: AccountInput, through horizon: Timestamp)
    -> DerivedAccountChanges?
  {
    derivation(of: token, input, through: horizon).derived
  }

  func derivation(of token: String, _ input: AccountInput, through horizon: Timestamp)
    -> AccountDerivation
  {
    let steps = input.derivationSteps
    let marker = input.derivation
    let done = Int(marker.events ?? 0)
    guard done <= steps.count else { return AccountDerivation(derived: nil, state: nil) }
    var derivation = ChangeDerivation(
      token: token, catalog: configuration.catalog, options: configuration.options,
      after: steps[..<done].map(\.step), instant: marker.instant.map(Timestamp.init(milliseconds:)))
    var changes: [DerivedChange] = []
    var limit = horizon
    var taken = done
    for step in steps[done...] {
      guard step.settled else {
        limit = min(limit, step.instant)
        break
      }
      changes += derivation.apply(step.step, at: step.instant)
      taken += 1
    }
    changes += derivation.advance(to: limit)
    let state = taken == steps.count ? derivation.state : nil
    let instant = derivation.instant
    if taken == done, changes.isEmpty, instant?.milliseconds == marker.instant,
      marker.version != nil
    {
      return AccountDerivation(derived: nil, state: state)
    }
    return AccountDerivation(
      derived: DerivedAccountChanges(
        token: token, expectedVersion: marker.version ?? 0, events: Int64(taken),
        instant: instant, due: derivation.nextClockInstant(), firstOrdinal: marker.changes ?? 0,
        changes: changes),
      state: state)
  }
}
