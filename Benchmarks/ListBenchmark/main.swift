import AppStoreSimulator
import AppStoreVerification
import BenchmarkSupport
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport

// List benchmark: the first page (50 rows and the total) of each support list over 1,000,000
// accounts, through the library (`AccountLists`, as the API and the console call it) and as
// the plain SQL a person would write for that one filter, interleaved round by round in one
// run; the p50 and p99 of each, and the ratio of the p99s (plain over library: 1.00 means the
// library costs nothing over the hand-written query).
// The views are generated in SQL in the shape the projector stores (subscriptions with status,
// product, storefront, environment and expiry; entitlements; consumables), with the
// distribution of a subscription app: 70 % active, 20 % expired, 4 % billing retry, 2 % grace,
// 1 % revoked, 3 % without a subscription; 1 % Sandbox. Each account's status history holds two
// entries: its subscription's start and one later status.
// Then the operator's lists at the demo's size: a simulated year of `--customers` customers
// ingested through the library as Apple signed it (refund requests, notifications not
// understood, search), a changes webhook's delivery log and a relay target's queue and attempts
// in the demo's proportions (per customer: 12 changes delivered, 1 % of them failing; every
// notification relayed, a fifth of them twice). Each first page is timed through the library
// beside a `SELECT count(*)` of the same rows, which its total must equal; the target is a p99
// of at most 100 ms.
// Usage: ListBenchmark --database-url URL [--accounts 1000000] [--customers 2000] [--rounds 100]
//   [--keep]

struct Options {
  var databaseURL = ProcessInfo.processInfo.environment["STORELEDGER_TEST_DATABASE_URL"]
  var accounts = 1_000_000
  var rounds = 100
  var customers = 2000
  /// Leaves the database for a look at the plans (its name is printed).
  var keep = false

  init(_ arguments: [String]) {
    var iterator = arguments.dropFirst().makeIterator()
    while let argument = iterator.next() {
      switch argument {
      case "--database-url": databaseURL = iterator.next()
      case "--accounts": accounts = iterator.next().flatMap(Int.init) ?? accounts
      case "--rounds": rounds = iterator.next().flatMap(Int.init) ?? rounds
      case "--customers": customers = iterator.next().flatMap(Int.init) ?? customers
      case "--keep": keep = true
      default: fatalError("unknown argument \(argument)")
      }
    }
  }
}

/// One list: the library's filter, and the same question as plain SQL (rows, then count).
struct ListCase: Sendable {
  let name: String
  let filter: AccountListFilter?
  let transitions: StatusTransitionFilter?
  let rows: String
  let count: String
}

let options = Options(CommandLine.arguments)
guard let urlText = options.databaseURL else { fatalError("pass --database-url postgres://…") }
let logger = {
  var logger = Logger(label: "storeledger.list-benchmark")
  logger.logLevel = .error
  return logger
}()
let now = Int64(Date().timeIntervalSince1970 * 1000)
let day: Int64 = 86_400_000

let server = try DatabaseURL(urlText)
let database = try await BenchmarkDatabase.create(on: server, setupSQL: [], logger: logger)
print("seeding \(options.accounts) accounts…")
let seedStart = ContinuousClock.now
try await PostgresClient.withRunningClient(server.with(database: database.name), logger: logger) {
  client in
  _ = try await client.execute(
    PostgresQuery(
      unsafeSQL: """
        INSERT INTO storeledger.account_views (app_account_token, changes, projected_changes,
          projection, view, stable_from_ms, projected_at)
        SELECT md5(i::text)::uuid::text, 1, 1, 'bench',
          jsonb_build_object(
            'entitlements', CASE WHEN x.s IN (1, 3, 4) THEN jsonb_build_array(jsonb_build_object(
              'entitlement', CASE WHEN i % 3 = 0 THEN 'pro' ELSE 'plus' END,
              'active', x.s IN (1, 4), 'environment', x.env)) ELSE '[]'::jsonb END,
            'subscriptions', CASE WHEN x.s > 0 THEN jsonb_build_array(jsonb_build_object(
              'originalTransactionId', (2000000000000000 + i)::text,
              'productId', CASE WHEN i % 3 = 0 THEN 'pro.monthly' ELSE 'plus.yearly' END,
              'status', x.s,
              'storefront', (ARRAY['USA','DEU','FRA','GBR','JPN','BRA','CAN','AUS','ITA','ESP'])
                [1 + i % 10],
              'environment', x.env,
              'expiresDate', $1::bigint + (abs(hashint4(i + 7)) % 2592000) * 1000::bigint))
              ELSE '[]'::jsonb END,
            'consumables', CASE WHEN i % 7 = 0 THEN jsonb_build_array(jsonb_build_object(
              'productId', 'gems.100', 'environments', jsonb_build_array(x.env)))
              ELSE '[]'::jsonb END),
          $1::bigint - (abs(hashint4(i)) % 63072000) * 1000::bigint, now()
        FROM generate_series(1, $2::integer) AS i,
        LATERAL (SELECT
          CASE WHEN i % 100 < 70 THEN 1 WHEN i % 100 < 90 THEN 2 WHEN i % 100 < 94 THEN 3
            WHEN i % 100 < 96 THEN 4 WHEN i % 100 < 97 THEN 5 ELSE 0 END AS s,
          CASE WHEN i % 100 = 99 THEN 'Sandbox' ELSE 'Production' END AS env) AS x
        """,
      binds: {
        var binds = PostgresBindings()
        binds.append(now)
        binds.append(Int32(options.accounts))
        return binds
      }()), logger: logger)
  // The list columns, as the projector writes them beside each view (AccountListRow's rule).
  _ = try await client.execute(
    PostgresQuery(
      unsafeSQL: """
        UPDATE storeledger.account_views v SET
          list_statuses = ARRAY(SELECT DISTINCT (s->>'status')::integer
            FROM jsonb_array_elements(v.view->'subscriptions') s ORDER BY 1),
          list_entitlements = ARRAY(SELECT DISTINCT e->>'entitlement'
            FROM jsonb_array_elements(v.view->'entitlements') e
            WHERE (e->>'active')::boolean ORDER BY 1),
          list_products = ARRAY(SELECT DISTINCT s->>'productId'
              FROM jsonb_array_elements(v.view->'subscriptions') s ORDER BY 1)
            || ARRAY(SELECT DISTINCT c->>'productId'
              FROM jsonb_array_elements(v.view->'consumables') c ORDER BY 1),
          list_storefronts = ARRAY(SELECT DISTINCT s->>'storefront'
            FROM jsonb_array_elements(v.view->'subscriptions') s ORDER BY 1),
          list_environments = ARRAY(SELECT DISTINCT x FROM (
              SELECT s->>'environment' FROM jsonb_array_elements(v.view->'subscriptions') s
              UNION SELECT e->>'environment' FROM jsonb_array_elements(v.view->'entitlements') e
              UNION SELECT jsonb_array_elements_text(c->'environments')
                FROM jsonb_array_elements(v.view->'consumables') c) AS t(x) ORDER BY 1),
          list_next_expiry_ms = (SELECT min((s->>'expiresDate')::bigint)
            FROM jsonb_array_elements(v.view->'subscriptions') s
            WHERE (s->>'status')::integer = 1),
          list_changed_ms = coalesce(v.stable_from_ms, 0)
        """), logger: logger)
  _ = try await client.execute(
    PostgresQuery(
      unsafeSQL: """
        INSERT INTO storeledger.status_history (app_account_token, ordinal,
          original_transaction_id, from_status, to_status, effective_at_ms, recorded_at_ms,
          cause)
        SELECT md5((i / 2 + 1)::text)::uuid::text, i % 2, (2000000000000000 + i / 2 + 1)::text,
          CASE WHEN i % 2 = 0 THEN NULL ELSE 1 END,
          CASE WHEN i % 2 = 0 THEN 1 WHEN i % 50 < 35 THEN 1 WHEN i % 50 < 45 THEN 2
            WHEN i % 50 < 47 THEN 3 WHEN i % 50 < 48 THEN 4 ELSE 5 END,
          $1::bigint - (abs(hashint4(i)) % 63072000) * 1000::bigint, $1::bigint, 'bench:' || i
        FROM generate_series(1, 2 * $2::integer) AS i
        """,
      binds: {
        var binds = PostgresBindings()
        binds.append(now)
        binds.append(Int32(options.accounts))
        return binds
      }()), logger: logger)
  _ = try await client.execute(
    PostgresQuery(unsafeSQL: "VACUUM ANALYZE storeledger.account_views"), logger: logger)
  _ = try await client.execute(
    PostgresQuery(unsafeSQL: "VACUUM ANALYZE storeledger.status_history"), logger: logger)
}
print(
  String(
    format: "seeded in %.0f s", Double((ContinuousClock.now - seedStart).components.seconds)))

let columns = """
  app_account_token, list_changed_ms, list_statuses, list_entitlements, list_products,
    list_storefronts, list_environments, list_next_expiry_ms
  """
@Sendable func accountCase(_ name: String, _ filter: AccountListFilter, _ condition: String)
  -> ListCase
{
  ListCase(
    name: name, filter: filter, transitions: nil,
    rows: """
      SELECT \(columns) FROM storeledger.account_views WHERE \(condition)
      ORDER BY list_changed_ms DESC, app_account_token DESC LIMIT 51
      """,
    count: "SELECT count(*) FROM storeledger.account_views WHERE \(condition)")
}
let week = now + 7 * day
let cases: [ListCase] = [
  accountCase("every account", AccountListFilter(), "true"),
  accountCase("status 1 (active)", AccountListFilter(status: 1), "list_statuses @> ARRAY[1]"),
  accountCase("status 3 (retry)", AccountListFilter(status: 3), "list_statuses @> ARRAY[3]"),
  accountCase("status 4 (grace)", AccountListFilter(status: 4), "list_statuses @> ARRAY[4]"),
  accountCase(
    "entitlement pro", AccountListFilter(entitlement: "pro"), "list_entitlements @> ARRAY['pro']"),
  accountCase(
    "product gems.100", AccountListFilter(productId: "gems.100"),
    "list_products @> ARRAY['gems.100']"),
  accountCase(
    "storefront DEU", AccountListFilter(storefront: "DEU"), "list_storefronts @> ARRAY['DEU']"),
  accountCase(
    "environment Sandbox", AccountListFilter(environment: "Sandbox"),
    "list_environments @> ARRAY['Sandbox']"),
  accountCase(
    "changed in 7 days", AccountListFilter(changedSince: Timestamp(milliseconds: now - 7 * day)),
    "list_changed_ms >= \(now - 7 * day)"),
  accountCase(
    "ends in 7 days",
    AccountListFilter(
      expiresFrom: Timestamp(milliseconds: now), expiresBefore: Timestamp(milliseconds: week)),
    "list_next_expiry_ms >= \(now) AND list_next_expiry_ms < \(week)"),
  accountCase(
    "token prefix", AccountListFilter(tokenPrefix: "c4ca"), "app_account_token LIKE 'c4ca%'"),
  accountCase(
    "retry in DEU", AccountListFilter(status: 3, storefront: "DEU"),
    "list_statuses @> ARRAY[3] AND list_storefronts @> ARRAY['DEU']"),
  ListCase(
    name: "entered retry, 30 days",
    filter: nil,
    transitions: StatusTransitionFilter(
      status: 3, from: Timestamp(milliseconds: now - 30 * day), before: Timestamp(milliseconds: now)
    ),
    rows: """
      SELECT ordinal, app_account_token, original_transaction_id, from_status, to_status,
        effective_at_ms, recorded_at_ms, cause
      FROM storeledger.status_history
      WHERE to_status = 3 AND effective_at_ms >= \(now - 30 * day) AND effective_at_ms < \(now)
      ORDER BY effective_at_ms DESC, app_account_token DESC, ordinal DESC LIMIT 51
      """,
    count: """
      SELECT count(*) FROM storeledger.status_history
      WHERE to_status = 3 AND effective_at_ms >= \(now - 30 * day) AND effective_at_ms < \(now)
      """),
]

@Sendable func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
@Sendable func percentile(_ values: [Double], _ p: Double) -> Double {
  let sorted = values.sorted()
  return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

try await database.withWriter { client in
  let ledger = try Ledger(
    client: client,
    configuration: LedgerConfiguration(
      bundleId: "com.example.app", appAppleId: 1_234_567_890, environments: [.production],
      trustedRoots: try TestPKI().trustedRoots),
    logger: logger)
  let lists = AccountLists(ledger: ledger)
  print(
    "list                      rows  total     library p50/p99 ms   plain SQL p50/p99 ms   plain/library p99"
  )
  var ratios: [Double] = []
  for list in cases {
    var library: [Double] = []
    var plain: [Double] = []
    var (rows, total) = (0, 0)
    for round in 0..<(options.rounds + 3) {
      let start = ContinuousClock.now
      if let filter = list.filter {
        let page = try await lists.accounts(filter, limit: 50)
        (rows, total) = (page.rows.count, page.total)
      } else if let filter = list.transitions {
        let page = try await lists.statusTransitions(filter, limit: 50)
        (rows, total) = (page.rows.count, page.total)
      }
      let middle = ContinuousClock.now
      let plainRows = try await client.query(
        PostgresQuery(unsafeSQL: list.rows), logger: logger,
        reading: { result in
          var count = 0
          for try await _ in result { count += 1 }
          return count
        })
      let plainTotal = try await client.query(
        PostgresQuery(unsafeSQL: list.count), logger: logger,
        reading: { result in
          var total = 0
          for try await count in result.decode(Int.self) { total = count }
          return total
        })
      let end = ContinuousClock.now
      precondition(plainTotal == total && min(plainRows, 50) == rows, "\(list.name) differs")
      // The first rounds warm the caches and are not counted.
      guard round >= 3 else { continue }
      library.append(seconds(middle - start) * 1000)
      plain.append(seconds(end - middle) * 1000)
    }
    let ratio = percentile(plain, 0.99) / percentile(library, 0.99)
    ratios.append(ratio)
    print(
      list.name.padding(toLength: 24, withPad: " ", startingAt: 0)
        + String(
          format: "%4d %7d   %8.2f / %8.2f     %8.2f / %8.2f        %.2f", rows, total,
          percentile(library, 0.5), percentile(library, 0.99), percentile(plain, 0.5),
          percentile(plain, 0.99), ratio))
  }
  print(String(format: "RESULT list_speed_min=%.2f", ratios.min() ?? 0))
  print(String(format: "RESULT list_speed_median=%.2f", ratios.sorted()[ratios.count / 2]))
}
try await OperatorLists(
  database: database, customers: options.customers, rounds: options.rounds, logger: logger
).run()
if options.keep {
  print("kept the database \(database.name)")
} else {
  try await database.drop()
}
