/// An Apple identifier as the key of a folded record. Apple's transaction ids are decimal
/// numbers carried in strings; those that fit an `Int64` without a leading zero are keyed by
/// the number, so finding a record neither hashes a string nor follows a pointer to one (the
/// fold's hottest memory access). Any other string is kept as it is: no identifier is ever
/// rejected or merged with another.
public struct RecordKey: Hashable, Sendable, CustomStringConvertible {
  /// The identifier's value when it is canonical decimal, else -1.
  private let number: Int64
  /// Any other identifier, boxed so that a key is two words (the fold's maps hold many).
  private let text: Text?

  private final class Text: Sendable {
    let value: String
    init(_ value: String) { self.value = value }
  }

  public init(_ identifier: String) {
    if let number = Self.canonicalDecimal(identifier) {
      self.number = number
      self.text = nil
    } else {
      self.number = -1
      self.text = Text(identifier)
    }
  }

  /// The identifier as Apple wrote it.
  public var description: String { text?.value ?? String(number) }

  public static func == (lhs: RecordKey, rhs: RecordKey) -> Bool {
    lhs.number == rhs.number && lhs.text?.value == rhs.text?.value
  }

  public func hash(into hasher: inout Hasher) {
    if let text { hasher.combine(text.value) } else { hasher.combine(number) }
  }

  /// What `Dictionary` asks for. A numeric key is mixed with the table's seed by a bijective
  /// 64-bit finalizer (SplitMix64's) instead of a full SipHash: the fold looks up two keys per
  /// event, and these are Apple's signed identifiers, not attacker-chosen input; text keys keep
  /// SipHash.
  public func _rawHashValue(seed: Int) -> Int {
    guard text == nil else {
      var hasher = Hasher()
      hasher.combine(seed)
      hash(into: &hasher)
      return hasher.finalize()
    }
    var mixed =
      UInt64(bitPattern: number) ^ UInt64(bitPattern: Int64(seed)) &* 0x9E37_79B9_7F4A_7C15
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int(bitPattern: UInt(mixed ^ (mixed >> 31)))
  }

  /// The value of `string` when it is the shortest decimal spelling of a non-negative
  /// `Int64`, so that the number gives the string back exactly.
  private static func canonicalDecimal(_ string: String) -> Int64? {
    let utf8 = string.utf8
    guard let first = utf8.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9"),
      first != UInt8(ascii: "0") || utf8.count == 1
    else { return nil }
    var value: Int64 = 0
    for byte in utf8 {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
      let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
      let (sum, overflowAdding) = times10.addingReportingOverflow(Int64(byte &- 48))
      guard !overflow, !overflowAdding else { return nil }
      value = sum
    }
    return value
  }
}
