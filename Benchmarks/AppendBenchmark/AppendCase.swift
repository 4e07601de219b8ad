import Foundation
import StoreLedgerPostgres
import StoreLedgerCore

/// One measured shape: how many appenders run at once and how many events each transaction
/// carries. Every appender cycles over its own streams, so both sides write the same rows.
struct AppendCase: Sendable {
  let name: String
  let appenders: Int
  let batchSize: Int
  static let streamsPerAppender = 16

  struct Appender: Sendable {
    let prefix: String
    let batchSize: Int
    private(set) var transactions = 0

    init(prefix: String, batchSize: Int) {
      self.prefix = prefix
      self.batchSize = batchSize
    }

    /// The next transaction's stream, its first version and its events.
    mutating func next() -> (stream: String, firstVersion: Int64, events: [NewEvent]) {
      let slot = transactions % AppendCase.streamsPerAppender
      let round = transactions / AppendCase.streamsPerAppender
      transactions += 1
      let stream = "\(prefix)-\(slot)"
      let events = (0..<batchSize).map {
        BenchmarkEvents.make(key: "\(stream)-\(round)-\($0)")
      }
      return (stream, Int64(round * batchSize + 1), events)
    }
  }
}
