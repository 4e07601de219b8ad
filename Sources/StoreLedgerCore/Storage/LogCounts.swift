/// How much the log holds: events, streams, and accounts holding any stream.
public struct LogCounts: Sendable, Hashable {
  package var events: Int
  package var streams: Int
  package var accounts: Int

  package init(events: Int, streams: Int, accounts: Int) {
    self.events = events
    self.streams = streams
    self.accounts = accounts
  }
}
