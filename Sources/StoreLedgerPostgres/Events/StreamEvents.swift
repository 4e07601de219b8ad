import StoreLedgerCore
/// The events of one stream, fetched a page at a time as the sequence is consumed.
public struct StreamEvents: AsyncSequence, Sendable {
  public typealias Element = RecordedEvent

  let store: EventStore
  let streamId: String
  let firstVersion: Int64
  let pageSize: Int

  public struct AsyncIterator: AsyncIteratorProtocol {
    let sequence: StreamEvents
    var nextVersion: Int64
    var buffer: [RecordedEvent] = []
    var finished = false

    public mutating func next() async throws -> RecordedEvent? {
      if buffer.isEmpty, !finished {
        buffer = try await sequence.store.readStream(
          sequence.streamId, from: nextVersion, limit: sequence.pageSize)
        finished = buffer.count < sequence.pageSize
        buffer.reverse()
      }
      guard let event = buffer.popLast() else { return nil }
      nextVersion = event.streamVersion + 1
      return event
    }
  }

  public func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(sequence: self, nextVersion: firstVersion)
  }
}
