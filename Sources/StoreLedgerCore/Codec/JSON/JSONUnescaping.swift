/// The bytes a JSON string with escape sequences stands for.
enum JSONUnescaping {
  /// `raw`: the string's content between its quotes, already checked by the scanner;
  /// `offset`: where it starts in the text, for errors.
  static func bytes(_ raw: UnsafeRawBufferPointer, at offset: Int) throws(JSONSyntaxError)
    -> [UInt8]
  {
    var (result, index) = ([UInt8](), 0)
    result.reserveCapacity(raw.count)
    while index < raw.count {
      let byte = raw[index]
      guard byte == UInt8(ascii: "\\") else {
        result.append(byte)
        index += 1
        continue
      }
      let escaped = raw[index + 1]
      index += 2
      switch escaped {
      case UInt8(ascii: "b"): result.append(0x08)
      case UInt8(ascii: "f"): result.append(0x0C)
      case UInt8(ascii: "n"): result.append(0x0A)
      case UInt8(ascii: "r"): result.append(0x0D)
      case UInt8(ascii: "t"): result.append(0x09)
      case UInt8(ascii: "u"):
        let scalar = try self.scalar(raw, &index, at: offset)
        UTF8.encode(scalar) { result.append($0) }
      default: result.append(escaped)
      }
    }
    return result
  }

  /// The scalar of a `\uXXXX` escape (whose digits start at `index`), joining a surrogate
  /// pair; moves `index` past what it read.
  private static func scalar(_ raw: UnsafeRawBufferPointer, _ index: inout Int, at offset: Int)
    throws(JSONSyntaxError) -> Unicode.Scalar
  {
    let first = hex4(raw, index)
    index += 4
    if (0xDC00...0xDFFF).contains(first) { throw JSONSyntaxError(.invalidEscape, at: offset) }
    guard (0xD800...0xDBFF).contains(first) else { return Unicode.Scalar(first)! }
    guard index + 6 <= raw.count, raw[index] == UInt8(ascii: "\\"),
      raw[index + 1] == UInt8(ascii: "u")
    else { throw JSONSyntaxError(.invalidEscape, at: offset) }
    let second = hex4(raw, index + 2)
    guard (0xDC00...0xDFFF).contains(second) else {
      throw JSONSyntaxError(.invalidEscape, at: offset)
    }
    index += 6
    return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
  }

  private static func hex4(_ raw: UnsafeRawBufferPointer, _ index: Int) -> UInt32 {
    (index..<index + 4).reduce(0) { $0 << 4 | (JSONBytes.hexValue(raw[$1]) ?? 0) }
  }
}
