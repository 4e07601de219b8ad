/// Checks a JSON text (RFC 8259) and records where each of its values lies, in one pass and
/// without making any string: values are read from the bytes only when asked for.
struct JSONScanner {
  static let maximumDepth = 512

  private let bytes: UnsafeRawBufferPointer
  private var offset = 0
  /// Grown by hand: an array's append checks uniqueness and capacity for every token. A
  /// token needs a quote pair, a bracket pair, a literal's letters, or a digit followed by a
  /// separator, a bracket or the end, so half the length plus two is room for any text;
  /// `append` still grows the buffer rather than trust that.
  private var tokens: UnsafeMutablePointer<JSONToken>
  private var count = 0
  private var capacity: Int

  private init(_ bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
    capacity = bytes.count / 2 + 2
    tokens = .allocate(capacity: capacity)
  }

  /// The tokens of a text holding exactly one value (whitespace around it allowed); the caller
  /// owns (and deallocates) the buffer.
  static func tokens(of bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError)
    -> UnsafeMutableBufferPointer<JSONToken>
  {
    var scanner = JSONScanner(bytes)
    do throws(JSONSyntaxError) {
      try scanner.value(depth: 0)
      scanner.skipWhitespace()
      guard scanner.offset == bytes.count else {
        throw JSONSyntaxError(.unexpectedCharacter, at: scanner.offset)
      }
    } catch {
      scanner.tokens.deallocate()
      throw error
    }
    return UnsafeMutableBufferPointer(start: scanner.tokens, count: scanner.count)
  }

  private mutating func append(_ token: JSONToken) {
    if count == capacity {
      let grown = UnsafeMutablePointer<JSONToken>.allocate(capacity: capacity * 2)
      grown.moveInitialize(from: tokens, count: count)
      tokens.deallocate()
      (tokens, capacity) = (grown, capacity * 2)
    }
    (tokens + count).initialize(to: token)
    count += 1
  }

  private mutating func value(depth: Int) throws(JSONSyntaxError) {
    skipWhitespace()
    guard offset < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: offset) }
    switch bytes[offset] {
    case UInt8(ascii: "{"): try object(depth: depth + 1)
    case UInt8(ascii: "["): try array(depth: depth + 1)
    case UInt8(ascii: "\""): try string(isKey: false)
    case UInt8(ascii: "t"): try literal("true", .true)
    case UInt8(ascii: "f"): try literal("false", .false)
    case UInt8(ascii: "n"): try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
    default: throw JSONSyntaxError(.unexpectedCharacter, at: offset)
    }
  }

  private mutating func object(depth: Int) throws(JSONSyntaxError) {
    guard depth <= Self.maximumDepth else { throw JSONSyntaxError(.tooDeep, at: offset) }
    let index = open(.object)
    var members: UInt32 = 0
    if try !closes(UInt8(ascii: "}")) {
      repeat {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
          throw JSONSyntaxError(offset < bytes.count ? .expectedKey : .unexpectedEnd, at: offset)
        }
        try string(isKey: true)
        try expect(UInt8(ascii: ":"))
        try value(depth: depth)
        members += 1
      } while try separator(closing: UInt8(ascii: "}"))
    }
    close(index, count: members)
  }

  private mutating func array(depth: Int) throws(JSONSyntaxError) {
    guard depth <= Self.maximumDepth else { throw JSONSyntaxError(.tooDeep, at: offset) }
    let index = open(.array)
    var elements: UInt32 = 0
    if try !closes(UInt8(ascii: "]")) {
      repeat {
        try value(depth: depth)
        elements += 1
      } while try separator(closing: UInt8(ascii: "]"))
    }
    close(index, count: elements)
  }

  private mutating func open(_ kind: JSONToken.Kind) -> Int {
    append(JSONToken(start: UInt32(offset), end: 0, info: 0, kind: kind, isComplex: false))
    offset += 1
    return count - 1
  }

  private mutating func close(_ index: Int, count: UInt32) {
    tokens[index].end = UInt32(self.count)
    tokens[index].info = count
  }

  /// Whether the container closes right away (it is empty).
  private mutating func closes(_ closing: UInt8) throws(JSONSyntaxError) -> Bool {
    skipWhitespace()
    guard offset < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: offset) }
    guard bytes[offset] == closing else { return false }
    offset += 1
    return true
  }

  /// After a member or element: true on a comma, false on the closing bracket.
  private mutating func separator(closing: UInt8) throws(JSONSyntaxError) -> Bool {
    skipWhitespace()
    guard offset < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: offset) }
    let byte = bytes[offset]
    offset += 1
    if byte == UInt8(ascii: ",") { return true }
    if byte == closing { return false }
    throw JSONSyntaxError(.unexpectedCharacter, at: offset - 1)
  }

  private mutating func expect(_ byte: UInt8) throws(JSONSyntaxError) {
    skipWhitespace()
    guard offset < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: offset) }
    guard bytes[offset] == byte else { throw JSONSyntaxError(.unexpectedCharacter, at: offset) }
    offset += 1
  }

  private mutating func literal(_ text: StaticString, _ kind: JSONToken.Kind)
    throws(JSONSyntaxError)
  {
    let length = text.utf8CodeUnitCount
    guard offset + length <= bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: offset) }
    for index in 0..<length where bytes[offset + index] != text.utf8Start[index] {
      throw JSONSyntaxError(.unexpectedCharacter, at: offset + index)
    }
    append(
      JSONToken(
        start: UInt32(offset), end: UInt32(offset + length), info: 0, kind: kind,
        isComplex: false))
    offset += length
  }

  /// A string; an unescaped key is hashed (escaped keys are hashed decoded, when indexed).
  private mutating func string(isKey: Bool) throws(JSONSyntaxError) {
    offset += 1
    let start = offset
    var escaped = false
    while true {
      skipPlainStringBytes()
      guard offset < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: offset) }
      let byte = bytes[offset]
      if byte == UInt8(ascii: "\"") { break }
      if byte < 0x20 { throw JSONSyntaxError(.controlCharacterInString, at: offset) }
      escaped = true
      try escape()
    }
    let hash =
      isKey && !escaped
      ? JSONKeyHash.of(UnsafeRawBufferPointer(rebasing: bytes[start..<offset])) : 0
    append(
      JSONToken(
        start: UInt32(start), end: UInt32(offset), info: hash, kind: .string,
        isComplex: escaped))
    offset += 1
  }

  /// Moves to the next quote, backslash or control character of a string: eight bytes at a
  /// time while none of them is one.
  private mutating func skipPlainStringBytes() {
    while offset + 8 <= bytes.count {
      let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian
      let special =
        Self.zeroBytes(word ^ 0x2222_2222_2222_2222)
        | Self.zeroBytes(word ^ 0x5C5C_5C5C_5C5C_5C5C)
        | (word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080
      if special != 0 {
        offset += special.trailingZeroBitCount / 8
        return
      }
      offset += 8
    }
    while offset < bytes.count {
      let byte = bytes[offset]
      if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return }
      offset += 1
    }
  }

  /// The high bit of each zero byte of `word` is set (and of no byte below the first zero).
  @inline(__always)
  private static func zeroBytes(_ word: UInt64) -> UInt64 {
    (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
  }

  /// Checks the escape sequence at `offset` and moves past it.
  private mutating func escape() throws(JSONSyntaxError) {
    guard offset + 1 < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: offset) }
    switch bytes[offset + 1] {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
      UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
      offset += 2
    case UInt8(ascii: "u"):
      guard offset + 6 <= bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: offset) }
      for index in offset + 2..<offset + 6 where JSONBytes.hexValue(bytes[index]) == nil {
        throw JSONSyntaxError(.invalidEscape, at: offset)
      }
      offset += 6
    default: throw JSONSyntaxError(.invalidEscape, at: offset)
    }
  }

  /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
  private mutating func number() throws(JSONSyntaxError) {
    let start = offset
    var complex = false
    if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
    guard offset < bytes.count, JSONBytes.isDigit(bytes[offset]) else {
      throw JSONSyntaxError(offset < bytes.count ? .invalidNumber : .unexpectedEnd, at: offset)
    }
    if bytes[offset] == UInt8(ascii: "0") {
      offset += 1
      if offset < bytes.count, JSONBytes.isDigit(bytes[offset]) {
        throw JSONSyntaxError(.invalidNumber, at: offset)
      }
    } else {
      skipDigits()
    }
    if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
      complex = true
      offset += 1
      try requireDigits()
    }
    if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
      complex = true
      offset += 1
      if offset < bytes.count,
        bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-")
      {
        offset += 1
      }
      try requireDigits()
    }
    append(
      JSONToken(
        start: UInt32(start), end: UInt32(offset), info: 0, kind: .number, isComplex: complex))
  }

  private mutating func requireDigits() throws(JSONSyntaxError) {
    guard offset < bytes.count, JSONBytes.isDigit(bytes[offset]) else {
      throw JSONSyntaxError(offset < bytes.count ? .invalidNumber : .unexpectedEnd, at: offset)
    }
    skipDigits()
  }

  private mutating func skipDigits() {
    while offset < bytes.count, JSONBytes.isDigit(bytes[offset]) { offset += 1 }
  }

  private mutating func skipWhitespace() {
    while offset < bytes.count {
      switch bytes[offset] {
      case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
        offset += 1
      default: return
      }
    }
  }
}
