import BenchmarkSupport
import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Synchronization

// Growth benchmark: do appends and stream reads slow down as the log grows?
// Fills `storeledger.events` to each size with rows shaped like the engine's (streams of ten
// events, transaction-sized payloads, unique keys and ids; inserted by SQL, not through the
// append, to reach 20 M rows in minutes), then measures at each size, for `--seconds`:
//   append — 8 appenders, one event per transaction, through EventStore.append (new streams);
//   read   — 8 readers, one random filled stream (ten events) per read, EventStore.readStreams.
// Usage: GrowthBenchmark --database-url URL [--sizes 1,5,10,20] (millions) [--seconds 5]
//        [--partitions N]
// --partitions N: the same on `storeledger.events` partitioned by hash of stream_id into N
// tables. PostgreSQL keeps a unique constraint on a partitioned table only when it holds the
// partition key, so idempotency_key, event_id and (tx_id, seq) get plain indexes there: the
// variant measures the rates partitioning would give, not a schema the engine could adopt.

struct Options {
  var databaseURL = ProcessInfo.processInfo.environment["STORELEDGER_TEST_DATABASE_URL"]
  var sizes = [1, 5, 10, 20]
  var seconds = 5.0
  var partitions = 0

  init(_ arguments: [String]) {
    var iterator = arguments.dropFirst().makeIterator()
    while let argument = iterator.next() {
      switch argument {
      case "--database-url": databaseURL = iterator.next()
      case "--sizes":
        sizes = (iterator.next() ?? "").split(separator: ",").compactMap { Int($0) }
      case "--seconds": seconds = iterator.next().flatMap(Double.init) ?? seconds
      case "--partitions": partitions = iterator.next().flatMap(Int.init) ?? partitions
      default: fatalError("unknown argument \(argument)")
      }
    }
  }
}

let options = Options(CommandLine.arguments)
guard let urlText = options.databaseURL else { fatalError("pass --database-url") }
var logger = Logger(label: "storeledger.growth-benchmark")
logger.logLevel = .error
let quiet = logger
let server = try DatabaseURL(urlText)
/// The events table swapped for one partitioned by hash of stream_id, with the engine's
/// indexes (unique only where the key allows), grants and insert triggers.
func partitionedSQL(_ count: Int) -> [String] {
  [
    "ALTER TABLE storeledger.events RENAME TO events_flat",
    """
    CREATE TABLE storeledger.events (LIKE storeledger.events_flat INCLUDING DEFAULTS
      INCLUDING IDENTITY INCLUDING GENERATED INCLUDING CONSTRAINTS) PARTITION BY HASH (stream_id)
    """,
    "ALTER TABLE storeledger.events ADD PRIMARY KEY (stream_id, stream_version)",
    "CREATE INDEX ON storeledger.events (idempotency_key)",
    "CREATE INDEX ON storeledger.events (event_id)",
    "CREATE INDEX ON storeledger.events (tx_id, seq)",
    """
    CREATE INDEX ON storeledger.events (storeledger.event_transaction_id(payload))
      WHERE event_type LIKE 'appstore.%'
    """,
    """
    DO $$ BEGIN
      FOR i IN 0..\(count - 1) LOOP
        EXECUTE format('CREATE TABLE storeledger.events_p%s PARTITION OF storeledger.events
          FOR VALUES WITH (MODULUS \(count), REMAINDER %s)', i, i);
      END LOOP;
    END $$
    """,
    "GRANT SELECT, INSERT ON storeledger.events TO storeledger_writer",
    """
    CREATE TRIGGER events_index_consumption AFTER INSERT ON storeledger.events
      FOR EACH ROW WHEN (NEW.event_type LIKE 'ledger.consumption\\_%')
      EXECUTE FUNCTION storeledger.index_consumption_trigger()
    """,
  ]
}

let database = try await BenchmarkDatabase.create(
  on: server, setupSQL: options.partitions > 0 ? partitionedSQL(options.partitions) : [],
  logger: quiet)
if options.partitions > 0 {
  say("events partitioned by hash of stream_id into \(options.partitions) tables")
}

let payload = #"""
  {"transactionId":"2000000812345678","originalTransactionId":"2000000800000001","bundleId":"com.example.storeledger","productId":"com.example.premium.monthly","subscriptionGroupIdentifier":"21000001","purchaseDate":1761955200000,"originalPurchaseDate":1759276800000,"expiresDate":1764547200000,"quantity":1,"type":"Auto-Renewable Subscription","appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138","inAppOwnershipType":"PURCHASED","signedDate":1761955201000,"environment":"Production","transactionReason":"RENEWAL","storefront":"USA","price":9990,"currency":"USD"}
  """#

/// Rows [from, to) of ten-event streams, with the columns the append fills.
@Sendable func fill(from: Int, to: Int, on client: PostgresClient) async throws {
  let chunk = 500_000
  for start in stride(from: from, to: to, by: chunk) {
    let end = min(start + chunk, to)
    try await client.execute(
      """
      INSERT INTO storeledger.events (stream_id, stream_version, event_id, idempotency_key,
        event_type, environment, apple_signed_at, recorded_at, payload, metadata, prev_hash, hash)
      SELECT 'sub:Production:' || (g / 10), g % 10 + 1, gen_random_uuid(), 'fill-' || g,
        'transaction.observed.v1', 'Production', now(), now(), \(payload)::jsonb,
        '{"source":"fill"}', sha256(((g - 1)::text)::bytea), sha256((g::text)::bytea)
      FROM generate_series(\(start), \(end - 1)) AS g
      """, logger: quiet)
  }
}

/// Runs `work` on `workers` tasks for `seconds`; the operations done per second.
@Sendable func rate(
  workers: Int, seconds: Double, _ work: @escaping @Sendable (Int, Int) async throws -> Void
) async throws -> Double {
  let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
  let start = ContinuousClock.now
  let done = try await withThrowingTaskGroup(of: Int.self) { group in
    for worker in 0..<workers {
      group.addTask {
        var count = 0
        while ContinuousClock.now < deadline {
          try await work(worker, count)
          count += 1
        }
        return count
      }
    }
    return try await group.reduce(0, +)
  }
  let elapsed = ContinuousClock.now - start
  return Double(done)
    / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

@Sendable func size(on client: PostgresClient) async throws -> String {
  try await client.query(
    """
    SELECT pg_size_pretty(sum(pg_total_relation_size(relid)))
    FROM pg_partition_tree('storeledger.events')
    """, logger: quiet
  ) { rows in
    var text = ""
    for try await value in rows.decode(String.self) { text = value }
    return text
  }
}

/// Written at once, not buffered: a run lasts half an hour and its lines should show as they come.
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

do {
  say("rows (M)  append/s (8 appenders)  stream reads/s (8 readers)  events table + indexes")
  var filled = 0
  let run = UUID().uuidString.prefix(8)
  for millions in options.sizes {
    let target = millions * 1_000_000
    let from = filled
    try await PostgresClient.withRunningClient(
      server.with(database: database.name), logger: quiet
    ) { admin in
      try await fill(from: from, to: target, on: admin)
      try await admin.execute("VACUUM ANALYZE storeledger.events", logger: quiet)
    }
    filled = target
    let (appends, reads, bytes) = try await database.withWriter { client in
      let store = EventStore(client: client, logger: quiet)
      let appends = try await rate(workers: 8, seconds: options.seconds) { worker, count in
        let event = NewEvent(
          eventType: "transaction.observed.v1",
          idempotencyKey: "grow-\(run)-\(millions)-\(worker)-\(count)",
          payload: Array(payload.utf8), environment: "Production", appleSignedAt: Date(),
          rawSigned: nil, metadata: Array(#"{"source":"benchmark"}"#.utf8))
        _ = try await store.append([event], to: "grow:\(run):\(millions):\(worker):\(count)")
      }
      let streams = target / 10
      let reads = try await rate(workers: 8, seconds: options.seconds) { _, _ in
        let read = try await store.readStreams(["sub:Production:\(Int.random(in: 0..<streams))"])
        precondition(read.count == 10)
      }
      return (appends, reads, try await size(on: client))
    }
    say(
      String(format: "%8d  %22.0f  %26.0f  ", millions, appends, reads) + bytes)
  }
  try await database.drop()
} catch {
  try? await database.drop()
  throw error
}
