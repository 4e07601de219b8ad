import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport

// Change derivation benchmark: what deriving an account's changes adds to projecting its
// view. Per account of generated lifecycles (events in recorded order), in one run, round by
// round on one core:
//   view       fold the account's events and take its summary at one instant (what the
//              projector did per account before the change feed: the ceiling);
//   + changes  the same, plus deriving every change from the first event (a fresh account,
//              or a derivation from the log);
//   one step   resume a saved derivation, take the account's newest event, and project the
//              view from the derivation's state (what the projector does when one event
//              arrives for an account already derived);
//   + history  one step, plus the account's status history derived whole in Apple's time
//              (`StatusHistory`), as the rebuild stores it beside every view it writes;
//   + continued one step, plus the history continued with the newest event from the
//              derivation the projector kept at the account's last refresh
//              (`StatusHistoryDerivation`), or derived whole when the event happened before
//              the last one taken: what the projector does live.
// Usage: ChangeBenchmark [--events 200000] [--rounds 3]

var eventCount = 200_000
var rounds = 3
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
  switch argument {
  case "--events": eventCount = arguments.next().flatMap(Int.init) ?? eventCount
  case "--rounds": rounds = arguments.next().flatMap(Int.init) ?? rounds
  default: fatalError("unknown argument \(argument)")
  }
}

struct Account {
  let token: String
  let events: [LedgerEvent]
}

var generator = SyntheticLifecycles(seed: 2026)
var accounts: [Account] = []
var total = 0
while total < eventCount {
  let before = generator.events.count
  generator.addCustomer(accounts.count)
  let events = generator.events[before...].sorted {
    ($0.recordedAt?.milliseconds ?? 0) < ($1.recordedAt?.milliseconds ?? 0)
  }
  accounts.append(Account(token: LedgerFixtures.account(accounts.count), events: events))
  total += events.count
}
var products: Set<String> = []
for account in accounts {
  for event in account.events {
    switch event.body {
    case .transaction(let seen): seen.transaction.productId.map { products.insert($0) }
    case .notification(let facts): facts.transaction?.productId.map { products.insert($0) }
    default: break
    }
  }
}
let catalog = ProductCatalog(
  products: Dictionary(
    uniqueKeysWithValues: products.map {
      ($0, ProductCatalog.Product(entitlements: [String($0.split(separator: ".")[0])]))
    }))
let now = Timestamp(
  milliseconds: (accounts.flatMap(\.events).compactMap(\.recordedAt?.milliseconds).max() ?? 0)
    + 86_400_000)
print("\(total) events of \(accounts.count) accounts, \(products.count) products")

/// What the measured work computes goes here, so none of it is optimized away.
nonisolated(unsafe) var sink = 0

@MainActor @inline(never)
func views() -> Int {
  accounts.reduce(0) { count, account in
    let view = LedgerView(LedgerState.fold(account.events), catalog: catalog)
    return count + AccountSummary(view, for: account.token, at: now).subscriptions.count
  }
}

@MainActor @inline(never)
func viewsAndChanges() -> Int {
  accounts.reduce(0) { count, account in
    let view = LedgerView(LedgerState.fold(account.events), catalog: catalog)
    let summary = AccountSummary(view, for: account.token, at: now)
    var derivation = ChangeDerivation(token: account.token, catalog: catalog)
    var changes = 0
    for event in account.events {
      changes += derivation.apply(event, at: event.recordedAt ?? now).count
    }
    changes += derivation.advance(to: now).count
    sink &+= summary.subscriptions.count
    return count + changes
  }
}

@MainActor @inline(never)
func oneStep() -> Int {
  accounts.reduce(0) { count, account in
    guard let last = account.events.last else { return count }
    let earlier = account.events.dropLast()
    var derivation = ChangeDerivation(
      token: account.token, catalog: catalog, state: LedgerState.fold(Array(earlier)),
      instant: earlier.last?.recordedAt)
    let changes = derivation.apply(last, at: last.recordedAt ?? now).count
    // The view from the derivation's state: every event taken, no fold of its own.
    let view = LedgerView(derivation.state, catalog: catalog)
    sink &+= AccountSummary(view, for: account.token, at: now).subscriptions.count
    return count + changes
  }
}

@MainActor @inline(never)
func oneStepAndHistory() -> Int {
  oneStep()
    + accounts.reduce(0) { count, account in
      count
        + StatusHistory.derive(
          token: account.token, catalog: catalog, events: account.events, through: now
        ).count
    }
}

/// Each account's history derivation as the projector keeps it after its last refresh: every
/// event but the newest taken.
let kept: [StatusHistoryDerivation] = accounts.map { account in
  var derivation = StatusHistoryDerivation(token: account.token, catalog: catalog)
  derivation.take(Array(account.events.dropLast()), recordedBy: now)
  return derivation
}
var continuedAccounts = 0

@MainActor @inline(never)
func oneStepAndContinuedHistory() -> Int {
  var continued = 0
  let entries = zip(accounts, kept).reduce(0) { count, pair in
    let (account, kept) = pair
    guard let last = account.events.last else { return count }
    guard kept.canContinue(with: [last]) else {
      return count
        + StatusHistory.derive(
          token: account.token, catalog: catalog, events: account.events, through: now
        ).count
    }
    continued += 1
    var derivation = kept
    derivation.take([last], recordedBy: now)
    return count + derivation.history(through: now).count
  }
  continuedAccounts = continued
  return oneStep() + entries
}

@MainActor func seconds(_ body: () -> Int) -> (Double, Int) {
  let start = DispatchTime.now().uptimeNanoseconds
  let result = body()
  return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, result)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

_ = views()
var ratios: [Double] = []
var stepRatios: [Double] = []
var historyRatios: [Double] = []
var continuedRatios: [Double] = []
for round in 1...rounds {
  let (view, _) = seconds(views)
  let (derived, changes) = seconds(viewsAndChanges)
  let (step, _) = seconds(oneStep)
  let (history, entries) = seconds(oneStepAndHistory)
  let (continued, continuedEntries) = seconds(oneStepAndContinuedHistory)
  precondition(continuedEntries == entries, "a continued history differs from the whole one")
  ratios.append(derived / view)
  stepRatios.append(step / view)
  historyRatios.append(history / view)
  continuedRatios.append(continued / view)
  print(
    String(
      format:
        "round %d: view %.0f events/s (%.2f s), + changes %.0f events/s (%.2f s, %d changes), "
        + "one step %.2f s, one step + history %.2f s (%d entries and changes), "
        + "one step + continued history %.2f s (%d of %d accounts continued)",
      round, Double(total) / view, view, Double(total) / derived, derived, changes, step,
      history, entries, continued, continuedAccounts, accounts.count))
}
print(
  String(
    format:
      "median: (view + every change) / view %.2f; (view + one step) / view %.2f; "
      + "(view + one step + status history) / view %.2f; "
      + "(view + one step + continued history) / view %.2f, per account",
    median(ratios), median(stepRatios), median(historyRatios), median(continuedRatios))
    + " (\(sink % 10))")
