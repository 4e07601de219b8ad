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
