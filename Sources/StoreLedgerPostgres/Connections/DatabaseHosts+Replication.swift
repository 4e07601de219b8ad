import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore
import Synchronization

/// Writes waiting for a confirmation round, and whether one is running.
struct ConfirmationQueue: Sendable {
  struct Waiter: Sendable {
    var primary: Int
    var limit: Duration
    var continuation: CheckedContinuation<Result<Void, EventStoreError>, Never>
  }

  var waiting: [Waiter] = []
  var running = false
}

extension DatabaseHosts {
  /// What another host of the URL said about a write the primary committed.
  enum Follower: Sendable, Equatable {
    /// In recovery, having received and flushed WAL up to this point (nil: not streaming).
    case standby(received: UInt64?)
    /// Out of recovery: promoted while the primary still commits (a split brain).
    case promoted
    case unreachable
  }

  /// How long a standby may stand still behind a write before the write is refused.
  static let stallLimit = Duration.seconds(1)

  /// Returns once a write `primary` has committed would survive a switch to another host of
  /// the URL; throws `database_unavailable` when it might not, so the caller answers 503 and
  /// the sender tries again (the committed row then answers as stored before, and is
  /// confirmed the same way).
  ///
  /// A commit is normally on the synchronous standby before it returns, but a formation can
  /// turn synchronous replication off on a primary whose standby it is promoting at that very
  /// moment (pg_auto_failover 2.0 under load assigned a primary `wait_primary` in the middle
  /// of a planned failover: for 30 s it committed alone while the standby was promoted, and
  /// every one of those commits was rewound away when it rejoined). So, with several hosts:
  /// - another host out of recovery is a split brain: refused;
  /// - a standby that has flushed the primary's WAL position after the commit holds it: done;
  /// - a standby still behind is waited for while it moves (at most `limit`); one that stands
  ///   still for ``stallLimit`` (its primary is being cut off) is refused;
  /// - no other host answering is a primary committing alone while its standby is down, as
  ///   the formation chose (pg_auto_failover's `wait_primary`): done.
  /// A URL with one host has nothing to ask.
  public func confirmReplicated(
    on primary: PostgresClient, within limit: Duration = .seconds(5)
  ) async throws(EventStoreError) {
    guard asks, role == .primary, clients.count > 1,
      let index = clients.firstIndex(where: { $0 === primary })
    else { return }
    // Writes that finish together share one round of questions: every write waiting when a
    // round starts committed before it asks the primary's position, so the round's answer
    // holds for each of them. A write arriving during a round waits for the next.
    let outcome = await withCheckedContinuation { continuation in
      let starts = confirmations.withLock { queue -> Bool in
        queue.waiting.append(.init(primary: index, limit: limit, continuation: continuation))
        guard !queue.running else { return false }
        queue.running = true
        return true
      }
      if starts { Task { await self.confirmRounds() } }
    }
    try outcome.get()
  }

  /// Runs rounds while writes wait for one.
  private func confirmRounds() async {
    while true {
      let waiting = confirmations.withLock { queue -> [ConfirmationQueue.Waiter] in
        defer { queue.waiting = [] }
        if queue.waiting.isEmpty { queue.running = false }
        return queue.waiting
      }
      guard !waiting.isEmpty else { return }
      for (primary, group) in Dictionary(grouping: waiting, by: \.primary) {
        let limit = group.map(\.limit).min() ?? .seconds(5)
        let outcome: Result<Void, EventStoreError>
        do {
          try await confirmRound(primary: primary, within: limit)
          outcome = .success(())
        } catch {
          outcome = .failure(error)
        }
        for waiter in group { waiter.continuation.resume(returning: outcome) }
      }
    }
  }

  /// One round: whether the writes `primary` committed before it are on a standby.
  private func confirmRound(primary index: Int, within limit: Duration)
    async throws(EventStoreError)
  {
    let primary = clients[index]
    let others = clients.indices.filter { $0 != index }
    let start = ContinuousClock.now
    let target = try await position(on: primary)
    var received: [Int: UInt64?] = [:]
    var moved = start
    while true {
      let followers = await followers(others)
      if let promoted = followers.first(where: { $0.value == .promoted })?.key {
        lostCurrent()
        throw EventStoreError(
          .databaseUnavailable,
          "\(url.hosts[promoted]) is out of recovery while \(url.hosts[index]) still commits "
            + "(a switch in progress): the write is not acknowledged; retry once the "
            + "formation has one primary")
      }
      var standbys: [Int: UInt64?] = [:]
      for (host, follower) in followers {
        if case .standby(let position) = follower { standbys[host] = position }
      }
      if standbys.isEmpty { return }
      if standbys.values.contains(where: { ($0 ?? 0) >= target }) { return }
      let now = ContinuousClock.now
      if standbys.contains(where: { received[$0.key] != $0.value }) { moved = now }
      received = standbys
      guard now - moved < Self.stallLimit, now - start < limit else {
        throw EventStoreError(
          .databaseUnavailable,
          "no standby has received this write (\(Self.text(target)) on "
            + "\(url.hosts[index])): it is not acknowledged; retry once the standby follows "
            + "again")
      }
      try? await Task.sleep(for: .milliseconds(2))
    }
  }

  /// The primary's WAL insert position, after which the caller's commit lies.
  private func position(on primary: PostgresClient) async throws(EventStoreError) -> UInt64 {
    do {
      let text = try await withTimeout(.seconds(2)) { [logger] in
        try await primary.query(
          "SELECT pg_current_wal_insert_lsn()::text", logger: logger
        ) { rows in
          var text = ""
          for try await value in rows.decode(String.self) { text = value }
          return text
        }
      }
      return try Self.lsn(text).orThrow()
    } catch {
      throw EventStoreError.database(error, while: "confirming a write reached a standby")
    }
  }

  /// Each other host's answer, asked through its pool at the same time.
  private func followers(_ hosts: [Int]) async -> [Int: Follower] {
    await withTaskGroup(of: (Int, Follower).self) { group in
      for host in hosts {
        let client = clients[host]
        let logger = self.logger
        group.addTask {
          do {
            let follower = try await withTimeout(.seconds(1)) {
              try await client.query(
                "SELECT pg_is_in_recovery(), pg_last_wal_receive_lsn()::text", logger: logger
              ) { rows in
                var follower = Follower.unreachable
                for try await (recovery, received) in rows.decode((Bool, String?).self) {
                  follower = recovery ? .standby(received: received.flatMap(Self.lsn)) : .promoted
                }
                return follower
              }
            }
            return (host, follower)
          } catch {
            return (host, .unreachable)
          }
        }
      }
      var answers: [Int: Follower] = [:]
      for await (host, follower) in group { answers[host] = follower }
      return answers
    }
  }

  /// A WAL position as PostgreSQL writes it (`16/B374D848`).
  package static func lsn(_ text: String) -> UInt64? {
    let parts = text.split(separator: "/")
    guard parts.count == 2, let high = UInt64(parts[0], radix: 16),
      let low = UInt64(parts[1], radix: 16), high <= UInt64(UInt32.max), low <= UInt64(UInt32.max)
    else { return nil }
    return high << 32 | low
  }

  package static func text(_ lsn: UInt64) -> String {
    String(lsn >> 32, radix: 16, uppercase: true) + "/"
      + String(lsn & 0xFFFF_FFFF, radix: 16, uppercase: true)
  }
}
