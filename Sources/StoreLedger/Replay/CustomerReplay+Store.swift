import Foundation
import Logging
import StoreLedgerCore

extension CustomerReplay {
  /// The ids to start from, in two rounds: those a run started from before (their revisions
  /// are stored), then the others, which start only once the first round has finished (so an
  /// id a stored customer covers is known covered, and a second run fetches nothing again).
  /// Each round is in a fixed order that spreads one customer's (neighbouring) ids apart, so
  /// that concurrent replays rarely share a customer.
  func startingIds(_ customers: Customers) async throws -> [[String]] {
    let ids = try await maintenance.purchaseChains(
      customers, in: environment, logger: logger)
    let started = Set(try await replayedIds())
    let order: (String, String) -> Bool = {
      (String($0.reversed()), $0) < (String($1.reversed()), $1)
    }
    return [
      ids.filter(started.contains).sorted(by: order),
      ids.filter { !started.contains($0) }.sorted(by: order),
    ]
  }

  private func replayedIds() async throws -> [String] {
    let prefix = "replay:\(environment.rawValue):"
    let streams = try await maintenance.maintenance.streams(
      startingWith: Self.revisionEventType)
    return streams.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
  }

  /// Where a customer's last replay stopped, and the chains it had found then.
  struct Progress: Codable {
    var anyTransactionId: String
    var revision: String
    var originals: [String]
    /// Where Get Refund History stopped.
    var refundRevision: String?
  }

  /// The progress the last run stored for this customer, if any.
  func storedProgress(_ stream: String) async throws -> Progress? {
    let last = try await log.readStreams([stream]).last
    return try last.map { try JSONDecoder().decode(Progress.self, from: Data($0.payload)) }
  }

  func store(_ progress: Progress, in stream: String) async throws {
    _ = try await log.append(
      [
        EventCodec.newRecord(
          Array(try JSONEncoder().encode(progress)), type: Self.revisionEventType,
          key: "\(stream):\(progress.revision):\(progress.refundRevision ?? "")",
          source: "replay", environment: environment.rawValue)
      ], to: stream, indexing: nil)
  }
}
