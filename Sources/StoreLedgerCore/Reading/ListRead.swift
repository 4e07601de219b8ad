/// A page a list read, and how many rows the whole list holds when that was counted.
public struct ListRead<Row: Sendable>: Sendable {
  public var rows: [Row]
  public var total: Int?

  public init(rows: [Row], total: Int?) {
    self.rows = rows
    self.total = total
  }
}
