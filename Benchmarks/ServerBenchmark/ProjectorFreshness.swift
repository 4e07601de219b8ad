import BenchmarkSupport
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Synchronization

/// How stale a projector's output is while the webhook takes load: every 100 ms, for each
/// checkpoint, the age of the oldest event in the log it has not passed yet (0 when it has passed
/// them all). An event counts from when it was recorded, so an event committed but still held
/// back from the feed (an older transaction not yet committed) counts as stale too.
final class ProjectorFreshness: Sendable {
  let database: BenchmarkDatabase
  let checkpoints: [String]
  let logger: Logger
  private let samples = Mutex<[String: [Double]]>([:])

  init(database: BenchmarkDatabase, checkpoints: [String], logger: Logger) {
    self.database = database
    self.checkpoints = checkpoints
    self.logger = logger
  }

  /// Samples until cancelled.
  func sample(every interval: Duration = .milliseconds(100)) async {
    while !Task.isCancelled {
      for name in checkpoints {
        if let age = try? await staleness(of: name) {
          samples.withLock { $0[name, default: []].append(age) }
        }
      }
      try? await Task.sleep(for: interval)
    }
  }

  /// Seconds the oldest event `checkpoint` has not passed has waited, or 0.
  func staleness(of checkpoint: String) async throws -> Double {
    try await database.withWriter { client in
      try await client.query(
        """
        WITH mark AS (
          SELECT COALESCE((SELECT tx_id FROM storeledger.checkpoints WHERE name = \(checkpoint)),
                          '0'::xid8) AS tx_id,
                 COALESCE((SELECT seq FROM storeledger.checkpoints WHERE name = \(checkpoint)),
                          0) AS seq)
        SELECT extract(epoch FROM clock_timestamp() - events.recorded_at)::float8
        FROM storeledger.events, mark
        WHERE (events.tx_id, events.seq) > (mark.tx_id, mark.seq)
        ORDER BY events.tx_id, events.seq LIMIT 1
        """, logger: logger
      ) { rows in
        var age = 0.0
        for try await value in rows.decode(Double.self) { age = max(0, value) }
        return age
      }
    }
  }

  /// Seconds from now until `checkpoint` has passed every event in the log.
  func catchUp(_ checkpoint: String) async throws -> Double {
    let start = ContinuousClock.now
    while try await staleness(of: checkpoint) > 0 {
      try await Task.sleep(for: .milliseconds(20))
    }
    return (ContinuousClock.now - start).seconds
  }

  /// The samples of `checkpoint`, sorted.
  func sorted(_ checkpoint: String) -> [Double] {
    samples.withLock { ($0[checkpoint] ?? []).sorted() }
  }

  static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
  }
}
