import Foundation
import PostgresNIO
import StoreLedgerCore

/// The global feed as an endless async sequence: every committed event exactly once, in feed
/// order, from a starting position. When caught up it waits `pollInterval`, or less when
/// `wakeUp` is signalled (see ``EventStore/listenForAppends(signalling:)``); a wake-up is only
/// a hint. Ends when its task is cancelled.
public struct EventFeed: AsyncSequence, Sendable {
  public typealias Element = RecordedEvent

  let store: EventStore
  let start: FeedPosition
  let batchSize: Int
  let pollInterval: Duration
  let wakeUp: WakeUpSignal?

  public struct AsyncIterator: AsyncIteratorProtocol {
    let feed: EventFeed
    var position: FeedPosition
    var buffer: [RecordedEvent] = []
    /// How long to wait when caught up: the poll interval, or less while a wake-up has
    /// announced events that the commit fence does not let through yet.
    var wait: Duration?

    public mutating func next() async throws -> RecordedEvent? {
      while buffer.isEmpty {
        try Task.checkCancellation()
        let generation = feed.wakeUp?.generation
        buffer = try await feed.store.readFeed(after: position, limit: feed.batchSize).reversed()
        if buffer.isEmpty {
          await waitForMore(after: generation)
        } else {
          wait = nil
        }
      }
      let event = buffer.removeLast()
      position = event.position
      return event
    }

    /// Waits for more events. After a wake-up the next reads come quickly (20 ms, doubling up
    /// to the poll interval): the announced events may still sit behind the commit fence.
    private mutating func waitForMore(after generation: UInt64?) async {
      let interval = wait ?? feed.pollInterval
      guard let wakeUp = feed.wakeUp else {
        try? await Task.sleep(for: interval)
        return
      }
      if await wakeUp.wait(after: generation, timeout: interval) {
        wait = .milliseconds(20)
      } else if let current = wait {
        wait = current * 2 < feed.pollInterval ? current * 2 : nil
      }
    }
  }

  public func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(feed: self, position: start)
  }
}

extension EventStore {
  /// Follows the feed from just after `position`.
  public func feed(
    after position: FeedPosition = .beginning, batchSize: Int = 500,
    pollInterval: Duration = .milliseconds(200), wakeUp: WakeUpSignal? = nil
  ) -> EventFeed {
    EventFeed(
      store: self, start: position, batchSize: batchSize, pollInterval: pollInterval,
      wakeUp: wakeUp)
  }

  /// Listens for the append notifications of `schema/` on a connection of its own and
  /// signals each; runs until cancelled. Run it beside the feeds that share `signal`.
  ///
  /// It also signals once when it starts listening: appends made while it was not yet (or
  /// no longer) listening sent their notification to no one.
  public func listenForAppends(signalling signal: WakeUpSignal) async throws {
    try await client.withConnection { connection in
      try await connection.listen(on: "storeledger_events") { notifications in
        signal.signal()
        for try await _ in notifications { signal.signal() }
      }
    }
  }
}
