import Foundation
import StoreLedgerCore
import StoreLedgerPostgres

extension ChangeFeedReader {
  /// Up to `limit` changes after `position` (0: from the start), in feed order; only
  /// `account`'s when given. A position after the newest change is `positionBeyondFeed`. A
  /// replica answers unless `consistency` is `exact`, and only once it holds `position`: a
  /// reader that saw a change on the primary or another replica never reads an older feed.
  public func changes(
    after position: Int64 = 0, limit: Int = 100, account: String? = nil,
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> [ChangeRecord] {
    guard position >= 0 else {
      throw LedgerError(.invalidRequest, "a feed position is 0 or more")
    }
    guard (1...1000).contains(limit) else {
      throw LedgerError(.invalidRequest, "limit must be between 1 and 1000")
    }
    let token = try account.map { token throws(LedgerError) in try AppAccountToken.checked(token) }
    do {
      let read = try await feed.changes(
        after: position, limit: limit, account: token, consistency: consistency)
      let (records, head) = (read.value.changes, read.value.count)
      if let head, position > head {
        // A replica may not have replayed the position yet: only the primary says it is wrong.
        if read.replica != nil {
          return try await changes(
            after: position, limit: limit, account: account, consistency: .exact)
        }
        throw Self.beyondFeed(position, head: head)
      }
      return records.map { $0.of(app: app) }
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// Like ``changes(after:limit:account:consistency:)``, but when there is nothing after
  /// `position` yet, waits up to `wait` for a change to be appended (a long poll).
  public func changes(
    after position: Int64, limit: Int = 100, account: String? = nil, waitingUpTo wait: Duration,
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> [ChangeRecord] {
    let deadline = ContinuousClock.now + wait
    while true {
      let generation = writer.changesAppended.generation
      let records = try await changes(
        after: position, limit: limit, account: account, consistency: consistency)
      let now = ContinuousClock.now
      if !records.isEmpty || now >= deadline || Task.isCancelled { return records }
      // Changes another process appends are seen at the next poll.
      _ = await writer.changesAppended.wait(
        after: generation, timeout: min(deadline - now, Self.changePollInterval))
    }
  }

  /// How many readers wait for the next change now (long polls, and this process's deliverer
  /// between rounds).
  public var readersWaiting: Int { writer.changesAppended.waiting }

  /// The newest position of the change feed (0 while it is empty).
  public func head() async throws(LedgerError) -> Int64 {
    do {
      return try await feed.head()
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// Every change after `position`, as they are appended, for as long as the sequence is
  /// iterated (in order; resumable from any position). See ``ChangeSequence``.
  public func sequence(after position: Int64 = 0, account: String? = nil)
    -> ChangeSequence
  {
    ChangeSequence(feed: self, position: position, account: account)
  }

  /// The account's changes derived from the log alone, from its first event, through
  /// `time`: what the feed holds for it when the feed is right (the audit and the tests
  /// compare the two).
  public func derivedFromLog(of appAccountToken: String, through time: Date)
    async throws(LedgerError) -> [DerivedChange]
  {
    let token = try AppAccountToken.checked(appAccountToken)
    do {
      let accounts = try await writer.views.inputs(of: [token])
      guard var input = accounts[token] else { return [] }
      input.derivation = ChangeDerivationMarker(
        version: nil, events: nil, changes: nil, instant: nil)
      input.fence = .max
      return writer.derivedChanges(of: token, input, through: Timestamp(time))?.changes ?? []
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  static let changePollInterval = Duration.milliseconds(250)

  static func beyondFeed(_ position: Int64, head: Int64) -> LedgerError {
    LedgerError(.positionBeyondFeed, "position \(position) is after the newest change (\(head))")
  }
}
