import Foundation
import Logging
import PostgresNIO
import StoreLedgerPostgres
import StoreLedgerTestSupport

// Append benchmark: StoreLedger's append next to a plain INSERT of the same rows, interleaved
// round by round in one run so both see the same machine. Needs a PostgreSQL superuser URL
// (scripts/bench-append starts a throwaway cluster and passes it).
// Usage: AppendBenchmark --database-url URL [--rounds 5] [--seconds 3] [--only CASE]
//        [--setup-sql SQL]

struct Options {
  var databaseURL = ProcessInfo.processInfo.environment["STORELEDGER_TEST_DATABASE_URL"]
  var rounds = 5
  var seconds = 3.0
  /// Extra SQL run as the superuser after migrating, for experiments (e.g. dropping a trigger).
  var setupSQL: String?
  /// Runs only the case at this index (for profiling).
  var only: Int?

  init(_ arguments: [String]) {
    var iterator = arguments.dropFirst().makeIterator()
    while let argument = iterator.next() {
      switch argument {
      case "--database-url": databaseURL = iterator.next()
      case "--rounds": rounds = iterator.next().flatMap(Int.init) ?? rounds
      case "--seconds": seconds = iterator.next().flatMap(Double.init) ?? seconds
      case "--setup-sql": setupSQL = iterator.next()
      case "--only": only = iterator.next().flatMap(Int.init)
      default: fatalError("unknown argument \(argument)")
      }
    }
  }
}

let options = Options(CommandLine.arguments)
guard let urlText = options.databaseURL else {
  fatalError("pass --database-url postgres://superuser@host:port/postgres")
}
var logger = Logger(label: "storeledger.append-benchmark")
logger.logLevel = .error

let allCases = [
  AppendCase(name: "1 appender, 1 event/tx", appenders: 1, batchSize: 1),
  AppendCase(name: "8 appenders, 1 event/tx", appenders: 8, batchSize: 1),
  AppendCase(name: "32 appenders, 1 event/tx", appenders: 32, batchSize: 1),
  AppendCase(name: "1 appender, 100 events/tx", appenders: 1, batchSize: 100),
  AppendCase(name: "8 appenders, 100 events/tx", appenders: 8, batchSize: 100),
]

let cases = options.only.map { [allCases[$0]] } ?? allCases

let server = try DatabaseURL(urlText)
let database = try await BenchmarkDatabase.create(
  on: server, setupSQL: PlainInsert.setupSQL + [options.setupSQL].compactMap { $0 },
  logger: logger)
do {
  let report = try await database.withWriter { client in
    try await AppendComparison(
      store: EventStore(client: client, logger: logger),
      plain: PlainInsert(client: client, logger: logger), cases: cases, rounds: options.rounds,
      seconds: options.seconds
    ).run()
  }
  report.print()
  try await database.drop()
} catch {
  try? await database.drop()
  throw error
}
