/// Writes JSON text straight into bytes, for the read-model documents written once per account
/// on every projection (JSONEncoder builds a tree of boxed values first and took a seventh of
/// a rebuild's time). Members are written in the order they are given, unless the layout is
/// PostgreSQL's.
public struct JSONTextWriter {
  /// How the text is laid out.
  public enum Layout: Sendable {
    /// No spaces; members in the order written (the stored read model).
    case compact
    /// As PostgreSQL prints a `jsonb` value: `", "` and `": "` between parts, an object's
    /// members ordered by the key's length and then its bytes, `\b` and `\f` escaped by
    /// letter. A view stored as `jsonb` reads back in this layout, so an answer written so is
    /// the same bytes whether the stored view or a fold served it.
    case jsonb
  }

  public private(set) var bytes: [UInt8] = []
  /// Whether the next member or element needs a comma before it.
  private var needsComma = false
  private let layout: Layout
  /// For the `jsonb` layout: the members of the open objects, innermost last (where each
  /// starts, its separator included, and its key), and where each open object's members begin
  /// in that stack. Kept across objects so that ordering one allocates nothing.
  private var members: [(start: Int, key: StaticString)] = []
  private var objectMembers: [Int] = []
  private var order: [Int] = []
  private var scratch: [UInt8] = []

  public init(capacity: Int = 512, layout: Layout = .compact) {
    bytes.reserveCapacity(capacity)
    self.layout = layout
  }

  public var text: String { String(decoding: bytes, as: UTF8.self) }

  public mutating func object(_ body: (inout JSONTextWriter) -> Void) {
    open(UInt8(ascii: "{"))
    if layout == .jsonb { objectMembers.append(members.count) }
    body(&self)
    if layout == .jsonb { orderMembers(from: objectMembers.removeLast()) }
    close(UInt8(ascii: "}"))
  }

  /// Puts the open object's members (from `first` in the member stack to the end of the text)
  /// in `jsonb`'s order: shorter keys first, keys of one length by their bytes.
  private mutating func orderMembers(from first: Int) {
    defer { members.removeSubrange(first...) }
    let count = members.count - first
    guard count > 1 else { return }
    order.removeAll(keepingCapacity: true)
    order.append(contentsOf: first..<members.count)
    // Insertion sort, stable: an object has tens of members, and is often in order already.
    for index in 1..<count {
      let moving = order[index]
      var place = index
      while place > 0, Self.precedes(members[moving].key, members[order[place - 1]].key) {
        order[place] = order[place - 1]
        place -= 1
      }
      order[place] = moving
    }
    if order.elementsEqual(first..<members.count) {
      return
    }
    let base = members[first].start
    scratch.removeAll(keepingCapacity: true)
    scratch.append(contentsOf: bytes[base...])
    bytes.removeSubrange(base...)
    for (position, member) in order.enumerated() {
      let isFirst = member == first
      // Each member's text, without the separator before it (the first has none).
      let start = members[member].start - base + (isFirst ? 0 : 2)
      let end = member + 1 < members.count ? members[member + 1].start - base : scratch.count
      if position > 0 { bytes.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }
      bytes.append(contentsOf: scratch[start..<end])
    }
  }

  /// `jsonb`'s key order: by length, then by bytes.
  private static func precedes(_ a: StaticString, _ b: StaticString) -> Bool {
    let (aCount, bCount) = (a.utf8CodeUnitCount, b.utf8CodeUnitCount)
    guard aCount == bCount else { return aCount < bCount }
    return UnsafeBufferPointer(start: a.utf8Start, count: aCount).lexicographicallyPrecedes(
      UnsafeBufferPointer(start: b.utf8Start, count: bCount))
  }

  public mutating func array<Element>(
    _ elements: [Element], _ write: (inout JSONTextWriter, Element) -> Void
  ) {
    open(UInt8(ascii: "["))
    for element in elements {
      separate()
      write(&self, element)
      needsComma = true
    }
    close(UInt8(ascii: "]"))
  }

  /// An array of strings.
  public mutating func strings(_ values: [String]) {
    array(values) { json, value in json.string(value) }
  }

  /// `"name":` before a member's value.
  public mutating func key(_ name: StaticString) {
    if layout == .jsonb, !objectMembers.isEmpty { members.append((bytes.count, name)) }
    separate()
    bytes.append(UInt8(ascii: "\""))
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    if layout == .jsonb { bytes.append(UInt8(ascii: " ")) }
    needsComma = false
  }

  public mutating func member(_ name: StaticString, _ value: String?) {
    key(name)
    if let value { string(value) } else { null() }
    needsComma = true
  }

  public mutating func member<Integer: BinaryInteger>(_ name: StaticString, _ value: Integer?) {
    key(name)
    if let value { bytes.append(contentsOf: String(value).utf8) } else { null() }
    needsComma = true
  }

  public mutating func member(_ name: StaticString, _ value: Bool?) {
    key(name)
    if let value { bytes.append(contentsOf: (value ? "true" : "false").utf8) } else { null() }
    needsComma = true
  }

  public mutating func member(_ name: StaticString, _ value: Timestamp?) {
    member(name, value?.milliseconds)
  }

  /// A member whose value `write` writes (an object or an array).
  public mutating func member(_ name: StaticString, _ write: (inout JSONTextWriter) -> Void) {
    key(name)
    write(&self)
    needsComma = true
  }

  private mutating func null() { bytes.append(contentsOf: "null".utf8) }

  private mutating func separate() {
    guard needsComma else { return }
    bytes.append(UInt8(ascii: ","))
    if layout == .jsonb { bytes.append(UInt8(ascii: " ")) }
  }

  private mutating func open(_ bracket: UInt8) {
    bytes.append(bracket)
    needsComma = false
  }

  private mutating func close(_ bracket: UInt8) {
    bytes.append(bracket)
    needsComma = true
  }

  /// `text` as a JSON string literal.
  public static func quoted(_ text: String) -> String {
    var writer = JSONTextWriter(capacity: text.utf8.count + 2)
    writer.string(text)
    return writer.text
  }

  /// A JSON string literal: quotes, backslashes and control characters escaped.
  private mutating func string(_ value: String) {
    bytes.append(UInt8(ascii: "\""))
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
      case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
      case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
      case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
      case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
      case 0x08 where layout == .jsonb:
        bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
      case 0x0C where layout == .jsonb:
        bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
      case ..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]])
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }
}
