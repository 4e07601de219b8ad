import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport

// Fold benchmark: LedgerState.fold over generated lifecycles, next to a plain dictionary-update
// loop over the same events (the ceiling: one hash-map write per event, no rules), interleaved
// round by round on one core. Usage: FoldBenchmark [--events 1000000] [--rounds 5]
// [--shuffled] [--remade] [--fold-only] [--timelines]
// `--timelines`: what the projectors do per purchase chain on top of folding it — the revenue
// timelines and the snapshot of every projection — against the per-stream fold alone.

var eventCount = 1_000_000
var rounds = 5
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
  switch argument {
  case "--events": eventCount = arguments.next().flatMap(Int.init) ?? eventCount
  case "--rounds": rounds = arguments.next().flatMap(Int.init) ?? rounds
  case "--shuffled": break
  case "--fold-only", "--remade", "--timelines": break
  default: fatalError("unknown argument \(argument)")
  }
}

var generator = SyntheticLifecycles(seed: 2026)
var customer = 0
while generator.events.count < eventCount {
  generator.addCustomer(customer)
  customer += 1
}
// The log's feed delivers events in the order they were recorded; `--shuffled` measures the
// worst case, every event landing on a cold cache line.
let shuffled = CommandLine.arguments.contains("--shuffled")
var random = SeededRandom(seed: 7)
let generated = Array(generator.events.prefix(eventCount))
let events =
  shuffled
  ? generated.shuffled(using: &random)
  : generated.sorted { ($0.recordedAt?.milliseconds ?? 0) < ($1.recordedAt?.milliseconds ?? 0) }
// `--remade` folds the same events made again in recorded order, as the log's reader makes
// them (each event's fold input then lies next to the one before it); by default they are
// folded as the generator made them, customer by customer, so consecutive events' inputs lie
// far apart.
let remade =
  CommandLine.arguments.contains("--remade")
  ? events.map { LedgerEvent($0.body, recordedAt: $0.recordedAt, key: $0.key) } : events
print(
  "\(events.count) events of \(customer) customers, in \(shuffled ? "shuffled" : "recorded") order"
    + (CommandLine.arguments.contains("--remade") ? ", made again in that order" : ""))

/// Folds every event; the state is handed back so its deallocation is not timed.
@inline(never)
func foldAll() -> LedgerState {
  LedgerState.fold(remade)
}

/// The ceiling: the same events, one dictionary write each (the event's main identifier →
/// its time), no rules; the dictionary is handed back so its deallocation is not timed either.
@inline(never)
func plainLoop() -> [String: Int64] {
  var latest: [String: Int64] = [:]
  latest.reserveCapacity(events.count / 2)
  for index in events.indices {
    if let (key, time) = remade[index].compiled.keyAndTime { latest[key] = time }
  }
  return latest
}

func seconds(_ body: () -> Int) -> (Double, Int) {
  let start = DispatchTime.now().uptimeNanoseconds
  let result = body()
  return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, result)
}

/// The same events grouped by stream, in recorded order within each: how the inline projection
/// folds them (one small state per stream).
let streams: [[LedgerEvent]] = {
  var grouped: [String: [LedgerEvent]] = [:]
  for event in remade { grouped[event.body.streamSubject ?? "", default: []].append(event) }
  return Array(grouped.values)
}()

@inline(never)
func foldPerStream() -> [LedgerState] {
  streams.map { LedgerState.fold($0) }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func millions(_ rate: Double) -> String { String(format: "%.2fM", rate / 1_000_000) }

func measure(rounds: Int) {
  _ = foldAll()
  _ = plainLoop()
  let total = Double(events.count)
  var foldRates: [Double] = []
  var plainRates: [Double] = []
  for round in 1...rounds {
    var latest: [String: Int64] = [:]
    let plain: (Double, Int) = seconds {
      latest = plainLoop()
      return latest.count
    }
    latest = [:]
    var state = LedgerState()
    let fold: (Double, Int) = seconds {
      state = foldAll()
      return state.transactions.count
    }
    state = LedgerState()
    let foldRate: Double = total / fold.0
    let plainRate: Double = total / plain.0
    foldRates.append(foldRate)
    plainRates.append(plainRate)
    print(
      "round \(round): fold \(millions(foldRate)) events/s (\(fold.1) transactions), "
        + "plain loop \(millions(plainRate)) events/s (\(plain.1) keys)")
  }
  var streamRates: [Double] = []
  for _ in 1...rounds {
    var states: [LedgerState] = []
    let timed: (Double, Int) = seconds {
      states = foldPerStream()
      return states.count
    }
    states = []
    streamRates.append(total / timed.0)
  }
  print(
    "per-stream folds (\(streams.count) streams): \(millions(median(streamRates))) events/s "
      + "(rounds: \(streamRates.map(millions).joined(separator: " ")))")
  let ratios: [Double] = zip(foldRates, plainRates).map { $0.0 / $0.1 }
  let ratio: String = String(format: "%.2f", median(ratios))
  print(
    "median: fold \(millions(median(foldRates))) events/s, plain loop "
      + "\(millions(median(plainRates))) events/s, fold/plain \(ratio)")
}

/// Reading every projection back at one time from the folded state.
func measureSnapshot() {
  let state = LedgerState.fold(remade)
  let timed: (Double, Int) = seconds {
    let snapshot = LedgerView(state).snapshot(at: LedgerFixtures.t(200))
    return snapshot.subscriptions.count + snapshot.entitlements.count
  }
  print("snapshot of every projection: \(String(format: "%.2f", timed.0)) s (\(timed.1) rows)")
}

/// Per stream: the fold alone (the ceiling), the fold and the revenue timelines of the chain
/// (the revenue projector's work), the fold and every projection's snapshot (the account
/// views'), interleaved round by round; speed is the ceiling's time over each one's.
func measureTimelines(rounds: Int) {
  let horizon = LedgerFixtures.t(400)
  let at = LedgerFixtures.t(200)
  @inline(never) func folds() -> Int { streams.reduce(0) { $0 + LedgerState.fold($1).transactions.count } }
  @inline(never) func timelines() -> Int {
    streams.reduce(0) {
      $0
        + RevenueTimeline.timelines(
          of: LedgerState.fold($1), horizon: horizon, commission: CommissionPolicy()
        ).reduce(0) { $0 + $1.segments.count + $1.entries.count }
    }
  }
  @inline(never) func snapshots() -> Int {
    streams.reduce(0) {
      let snapshot = LedgerView(LedgerState.fold($1)).snapshot(at: at)
      return $0 + snapshot.subscriptions.count + snapshot.entitlements.count
    }
  }
  _ = (folds(), timelines(), snapshots())
  var speeds: [(Double, Double)] = []
  for round in 1...rounds {
    let fold = seconds(folds)
    let revenue = seconds(timelines)
    let views = seconds(snapshots)
    speeds.append((fold.0 / revenue.0, fold.0 / views.0))
    print(
      String(
        format: "round %d: fold %.2f s, fold + timelines %.2f s (%d rows), fold + snapshot %.2f s (%d rows)",
        round, fold.0, revenue.0, revenue.1, views.0, views.1))
  }
  print(
    String(
      format: "median speed against the fold alone: timelines %.2f, snapshot %.2f",
      median(speeds.map(\.0)), median(speeds.map(\.1))))
}

if CommandLine.arguments.contains("--timelines") {
  measureTimelines(rounds: rounds)
} else if CommandLine.arguments.contains("--fold-only") {
  // For profiling: the fold alone, nothing else in the samples but setup.
  for _ in 1...rounds { _ = foldAll() }
} else {
  measure(rounds: rounds)
  measureSnapshot()
}
