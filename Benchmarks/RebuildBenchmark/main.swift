import AppStoreVerification
import BenchmarkSupport
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport

// Rebuild benchmark: `Ledger.rebuildAccountViews` over a log of generated lifecycles, next to
// reading the same rows without folding them, and the revenue analytics made again, round by
// round in one run; peak memory of each phase; then the audit's signature re-verification next to the verifier in memory.
// Needs a PostgreSQL superuser URL (scripts/bench-rebuild starts a throwaway cluster).
// Usage: RebuildBenchmark --database-url URL [--events 1000000] [--rounds 3]
//        [--signature-customers 300] [--seed-only] [--checkpoints-only] [--erasure-only]
// --seed-only: seed the log, analyze it, print `database NAME` and keep it (scripts/bench-shards
// then runs the CLI's audit and rebuild on it, in one process and in two).
// --checkpoints-only: after seeding, measure only signed checkpoints (CheckpointMeasurement).
// --erasure-only: after seeding, measure only the erasure of accounts (ErasureMeasurement).

struct Options {
  var databaseURL = ProcessInfo.processInfo.environment["STORELEDGER_TEST_DATABASE_URL"]
  var eventCount = 1_000_000
  var rounds = 3
  var signatureCustomers = 300
  var seedOnly = false
  var checkpointsOnly = false
  var erasureOnly = false

  init(_ arguments: [String]) {
    var iterator = arguments.dropFirst().makeIterator()
    while let argument = iterator.next() {
      switch argument {
      case "--database-url": databaseURL = iterator.next()
      case "--events": eventCount = iterator.next().flatMap(Int.init) ?? eventCount
      case "--rounds": rounds = iterator.next().flatMap(Int.init) ?? rounds
      case "--seed-only": seedOnly = true
      case "--checkpoints-only": checkpointsOnly = true
      case "--erasure-only": erasureOnly = true
      case "--signature-customers":
        signatureCustomers = iterator.next().flatMap(Int.init) ?? signatureCustomers
      default: fatalError("unknown argument \(argument)")
      }
    }
  }
}

let options = Options(CommandLine.arguments)
let (eventCount, rounds, signatureCustomers) = (
  options.eventCount, options.rounds, options.signatureCustomers
)
guard let urlText = options.databaseURL else {
  fatalError("pass --database-url postgres://superuser@…")
}
let logger = {
  var logger = Logger(label: "storeledger.rebuild-benchmark")
  logger.logLevel = .error
  return logger
}()

/// The seeded app's Production ledger on `client`.
@Sendable func benchmarkLedger(_ client: PostgresClient) throws -> Ledger {
  try Ledger(
    client: client,
    configuration: LedgerConfiguration(
      bundleId: "com.example.app", appAppleId: 1_234_567_890, environments: [.production],
      trustedRoots: try TestPKI().trustedRoots),
    logger: logger)
}

let server = try DatabaseURL(urlText)
let database = try await BenchmarkDatabase.create(on: server, setupSQL: [], logger: logger)
do {
  try await database.withWriter { client in
    let seedStart = ContinuousClock.now
    let seeded = try await LogSeeder(store: EventStore(client: client, logger: logger)).seed(
      count: eventCount
    ) { done in
      if done % 100_000 < 500 { print("  seeded \(done) events") }
    }
    let seedSeconds = Figures.seconds(ContinuousClock.now - seedStart)
    print(
      "seeded \(seeded.events) events of \(seeded.customers) customers in "
        + String(format: "%.0f s (%.0f events/s)", seedSeconds, Double(seeded.events) / seedSeconds)
    )
  }
  PeakMemory.trim()
  _ = try await PostgresClient.withRunningClient(
    server.with(database: database.name), logger: logger
  ) { client in
    try await client.execute("VACUUM ANALYZE", logger: logger)
  }
  if options.seedOnly {
    print("database \(database.name)")
    exit(0)
  }
  if options.erasureOnly {
    // Erasure runs as the owner: the superuser's connection.
    try await PostgresClient.withRunningClient(
      server.with(database: database.name), logger: logger
    ) { client in
      print("round  phase                   rows/events   per second     peak RSS")
      try await ErasureMeasurement.run(
        owner: try benchmarkLedger(client), client: client, rounds: rounds, logger: logger)
    }
    try await database.drop()
    exit(0)
  }
  try await database.withWriter { client in
    let ledger = try benchmarkLedger(client)
    print("round  phase                   rows/events   per second     peak RSS")
    if options.checkpointsOnly {
      try await CheckpointMeasurement.run(
        ledger: ledger, client: client, rounds: rounds, logger: logger)
      return
    }
    var ratios: [Double] = []
    var rates: [Double] = []
    for round in 1...rounds {
      let (read, readSeconds) = try await Figures.measure("read (account rows)", round) {
        try await ReadMeasurement.accountRows(on: client, logger: logger)
      }
      _ = try await Figures.measure("read (events table)", round) {
        try await ReadMeasurement.tableRows(on: client, logger: logger)
      }
      PeakMemory.reset()
      let rebuilt = try await LedgerMaintenance(ledger: ledger).rebuildAccountViews()
      print(
        "\(round)      rebuild (\(rebuilt.accounts) accounts) \(rebuilt.events)   "
          + "\(Figures.rate(rebuilt.events, rebuilt.seconds))   \(Figures.megabytes())")
      precondition(rebuilt.events == read, "the rebuild folded \(rebuilt.events) of \(read) rows")
      let ratio = (Double(rebuilt.events) / rebuilt.seconds) / (Double(read) / readSeconds)
      ratios.append(ratio)
      rates.append(Double(rebuilt.events) / rebuilt.seconds)
      print(String(format: "       rebuild ÷ read of the same rows: %.2f", ratio))
      try await LedgerMaintenance(ledger: ledger).dropAccountViewsVersion(
        rebuilt.replacedVersion ?? 0)
      // The rest of `storeledger rebuild`: the revenue analytics made again from the log.
      _ = try await Figures.measure("revenue analytics", round) {
        try await RevenueProjector(ledger: ledger, logger: logger).rebuild()
      }
    }
    let sorted = ratios.sorted()
    print(String(format: "median rebuild ÷ read: %.2f", sorted[sorted.count / 2]))
    print(
      String(
        format: "RESULT rebuild_events_per_s=%.0f rebuild_ratio=%.2f",
        rates.sorted()[rates.count / 2], sorted[sorted.count / 2]))
    print(Target.line("rebuild ÷ read of the same rows", sorted[sorted.count / 2], atLeast: 0.75))
    if eventCount >= 1_000_000 {
      print(
        Target.line(
          "rebuild events/s at \(eventCount) events", rates.sorted()[rates.count / 2],
          atLeast: 150_000))
    }
  }
  if options.checkpointsOnly {
    try await database.drop()
    exit(0)
  }
  let signatures = try await SignatureMeasurement(customers: signatureCustomers, logger: logger)
    .run(server: server)
  print(
    "audit re-verified \(signatures.signatures) notification signatures: "
      + String(
        format: "%.0f/s; the verifier alone on the same strings: %.0f/s (ratio %.2f)",
        signatures.auditPerSecond, signatures.verifierPerSecond,
        signatures.auditPerSecond / signatures.verifierPerSecond))
  print(
    String(
      format:
        "audit re-verification on every core %.0f/s, on one core %.0f/s: %.2f× (target ≥ 1.6×)",
      signatures.auditPerSecond, signatures.auditOneCorePerSecond,
      signatures.auditPerSecond / signatures.auditOneCorePerSecond))
  try await database.drop()
} catch {
  try? await database.drop()
  throw error
}
