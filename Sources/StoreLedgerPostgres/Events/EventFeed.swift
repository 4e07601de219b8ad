import Foundation

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

    public mutating func next() async throws -> RecordedEvent? {
      while buffer.isEmpty {
        try Task.checkCancellation()
        buffer = try await feed.store.readFeed(after: position, limit: feed.batchSize).reversed()
        if buffer.isEmpty { await waitForMore() }
      }
      let event = buffer.removeLast()
      position = event.position
      return event
    }

    private func waitForMore() async {
      if let wakeUp = feed.wakeUp {
        await wakeUp.wait(timeout: feed.pollInterval)
      } else {
        try? await Task.sleep(for: feed.pollInterval)
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
  public func listenForAppends(signalling signal: WakeUpSignal) async throws {
    try await client.withConnection { connection in
      try await connection.listen(on: "storeledger_events") { notifications in
        for try await _ in notifications { signal.signal() }
      }
    }
  }
}
