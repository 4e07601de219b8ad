import StoreLedgerCore

/// The change feed as an `AsyncSequence`: every change after a position, in order, waiting
/// for new ones when it has given all there are. It never ends by itself; cancel the task
/// that iterates it. A failure to read (the database away) is thrown; iterate again from the
/// last position seen to resume.
public struct ChangeSequence: AsyncSequence, Sendable {
  public typealias Element = ChangeRecord

  let feed: ChangeFeedReader
  let position: Int64
  let account: String?

  public func makeAsyncIterator() -> Iterator {
    Iterator(feed: feed, position: position, account: account)
  }

  public struct Iterator: AsyncIteratorProtocol {
    let feed: ChangeFeedReader
    var position: Int64
    let account: String?
    var buffered: [ChangeRecord] = []

    public mutating func next() async throws -> ChangeRecord? {
      while buffered.isEmpty {
        if Task.isCancelled { return nil }
        buffered = try await feed.changes(
          after: position, limit: 500, account: account, waitingUpTo: .seconds(30))
      }
      let record = buffered.removeFirst()
      position = record.position
      return record
    }
  }
}
