/// Writes JSON text straight into bytes, for the read-model documents written once per account
/// on every projection (JSONEncoder builds a tree of boxed values first and took a seventh of
/// a rebuild's time). Members are written in the order they are given.
public struct JSONTextWriter {
  public private(set) var bytes: [UInt8] = []
  /// Whether the next member or element needs a comma before it.
  private var needsComma = false

  public init(capacity: Int = 512) { bytes.reserveCapacity(capacity) }

  public var text: String { String(decoding: bytes, as: UTF8.self) }

  public mutating func object(_ body: (inout JSONTextWriter) -> Void) {
    open(UInt8(ascii: "{"))
    body(&self)
    close(UInt8(ascii: "}"))
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
    separate()
    bytes.append(UInt8(ascii: "\""))
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
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
    if needsComma { bytes.append(UInt8(ascii: ",")) }
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
      case ..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]])
      default: bytes.append(byte)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }
}
