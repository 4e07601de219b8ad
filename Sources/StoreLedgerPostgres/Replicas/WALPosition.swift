/// A position in PostgreSQL's write-ahead log (an LSN, written `16/B374D848`): how far a
/// primary has written and a replica has replayed.
public struct WALPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
  public var value: UInt64

  public init(_ value: UInt64) { self.value = value }

  /// PostgreSQL's text form: two hexadecimal numbers, the high and low 32 bits.
  public init?(_ text: String) {
    let halves = text.split(separator: "/", omittingEmptySubsequences: false)
    guard halves.count == 2, let high = UInt32(halves[0], radix: 16),
      let low = UInt32(halves[1], radix: 16)
    else { return nil }
    self.value = UInt64(high) << 32 | UInt64(low)
  }

  public var description: String {
    String(value >> 32, radix: 16, uppercase: true) + "/"
      + String(value & 0xFFFF_FFFF, radix: 16, uppercase: true)
  }

  public static func < (lhs: WALPosition, rhs: WALPosition) -> Bool { lhs.value < rhs.value }
}
