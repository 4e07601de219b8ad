import StoreLedgerCore

/// One page of a list: its rows, how many rows the whole list holds, and the cursor of the
/// next page (nil on the last).
public struct ListPage<Row: Sendable>: Sendable {
  public var rows: [Row]
  /// Counted when the first page was read; later pages carry that count.
  public var total: Int
  public var nextCursor: String?

  public init(rows: [Row], total: Int, nextCursor: String?) {
    self.rows = rows
    self.total = total
    self.nextCursor = nextCursor
  }
}

extension ListPage {
  /// One page of a list: the cursor read back into the store's key (its total carried), one
  /// more row than the page read to know whether another page follows, and the next cursor
  /// made from the page's last row; `mapped` says what a storage error means.
  static func read<Position: Sendable>(
    list: String, filter: String, limit: Int, cursor: String?,
    key parse: ([String]) -> Position?,
    read: (Position?, Bool) async throws(EventStoreError) -> ListRead<Row>,
    keyOf: (Row) -> [String], mapped: (EventStoreError) -> LedgerError
  ) async throws(LedgerError) -> ListPage<Row> {
    var key: Position?
    var total: Int?
    if let cursor {
      let decoded = try ListCursor(text: cursor, list: list, filter: filter, keyParts: 2)
      guard let parsed = parse(decoded.key) else { throw ListCursor.invalid("it was changed") }
      key = parsed
      total = decoded.total
    }
    let answer: ListRead<Row>
    do {
      answer = try await read(key, total == nil)
    } catch {
      throw mapped(error)
    }
    let rows = Array(answer.rows.prefix(limit))
    let count = total ?? answer.total ?? rows.count
    let next = answer.rows.count > limit ? rows.last : nil
    return ListPage(
      rows: rows, total: count,
      nextCursor: next.map {
        ListCursor(total: count, key: keyOf($0)).text(list: list, filter: filter)
      })
  }
}
