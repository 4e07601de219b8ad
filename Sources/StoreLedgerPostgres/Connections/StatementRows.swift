import PostgresNIO

/// Every row of one statement, all received before the reader sees the first.
///
/// Why not PostgresNIO's streamed `PostgresRowSequence`: in PostgresNIO 1.33 a streamed
/// result stops asking the connection for more rows after each batch until its reader takes
/// one. When the server closes the connection inside that pause (a switchover's fast
/// shutdown), NIO hands over the rest of the socket's bytes and then `channelReadComplete`,
/// which the paused row stream treats as impossible and stops the process
/// (`RowStreamStateMachine`: "How can we receive a body part, after a channelReadComplete").
/// A collected result asks for the next batch as soon as one arrives, on the event loop, so
/// it is never paused; its failure fails the statement like any other.
///
/// A statement whose rows may not fit in memory is read in pages instead (see
/// `AccountViewsRebuildStatements.accountsEventsPage`).
package struct StatementRows: AsyncSequence, Sendable {
  package typealias Element = PostgresRow

  package let rows: [PostgresRow]

  package init(_ rows: [PostgresRow]) {
    self.rows = rows
  }

  package var count: Int { rows.count }

  package func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(rows: rows.makeIterator())
  }

  package struct AsyncIterator: AsyncIteratorProtocol {
    var rows: IndexingIterator<[PostgresRow]>

    package mutating func next() async throws -> PostgresRow? {
      rows.next()
    }
  }
}
