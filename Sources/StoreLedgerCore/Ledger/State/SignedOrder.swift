/// Records kept oldest first by Apple's `signedDate`, ties ordered by content
/// (`supersedes`), so any arrival order of the same evidence gives the same list.
protocol SignedOrder: Equatable {
  /// `signedDate` in milliseconds, `Int64.min` when absent.
  var signedMilliseconds: Int64 { get }
  func supersedes(_ other: Self) -> Bool
}

extension Array where Element: SignedOrder {
  /// Inserts `record` at its place, once: usually the newest, one comparison and an append.
  mutating func insertInSignedOrder(_ record: Element) {
    if isEmpty || record.signedMilliseconds > self[count - 1].signedMilliseconds {
      append(record)
      return
    }
    var index = endIndex
    while index > startIndex, !record.supersedes(self[index - 1]) { index -= 1 }
    if index > startIndex, self[index - 1] == record { return }
    if index < endIndex, self[index] == record { return }
    insert(record, at: index)
  }
}
