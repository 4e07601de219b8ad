/// Base64 and base64url over raw bytes, without Foundation strings in between.
///
/// Decoding is strict: an input that is not the canonical encoding of its bytes
/// (stray characters, wrong length, non-zero unused bits) is rejected, so two different
/// encodings can never stand for the same signature or certificate.
public enum Base64Bytes {
  public enum Alphabet: Sendable {
    case standardPadded
    case urlUnpadded
  }

  private static let invalid: UInt8 = 0xFF

  private static let standardTable: [UInt8] = makeTable(
    extra: (UInt8(ascii: "+"), UInt8(ascii: "/")))
  private static let urlTable: [UInt8] = makeTable(extra: (UInt8(ascii: "-"), UInt8(ascii: "_")))

  private static func makeTable(extra: (UInt8, UInt8)) -> [UInt8] {
    var table = [UInt8](repeating: invalid, count: 256)
    for (index, byte) in symbols(extra: extra).enumerated() { table[Int(byte)] = UInt8(index) }
    return table
  }

  private static func symbols(extra: (UInt8, UInt8)) -> [UInt8] {
    Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8) + [
      extra.0, extra.1,
    ]
  }

  /// Decodes `input`, or returns nil when it is not canonical base64 of the given alphabet.
  static func decode(_ input: UnsafeBufferPointer<UInt8>, alphabet: Alphabet) -> [UInt8]? {
    var length = input.count
    if alphabet == .standardPadded {
      guard length % 4 == 0 else { return nil }
      if length > 0, input[length - 1] == UInt8(ascii: "=") { length -= 1 }
      if length > 0, input[length - 1] == UInt8(ascii: "=") { length -= 1 }
    }
    guard length % 4 != 1 else { return nil }
    let table = alphabet == .standardPadded ? standardTable : urlTable
    return table.withUnsafeBufferPointer { table in
      decodeSymbols(UnsafeBufferPointer(rebasing: input[0..<length]), table: table)
    }
  }

  static func decode(_ input: ArraySlice<UInt8>, alphabet: Alphabet) -> [UInt8]? {
    input.withUnsafeBufferPointer { decode($0, alphabet: alphabet) }
  }

  public static func decode(_ input: String, alphabet: Alphabet) -> [UInt8]? {
    var input = input
    return input.withUTF8 { decode($0, alphabet: alphabet) }
  }

  private static func decodeSymbols(
    _ input: UnsafeBufferPointer<UInt8>, table: UnsafeBufferPointer<UInt8>
  ) -> [UInt8]? {
    let fullGroups = input.count / 4
    let tail = input.count % 4
    let outputCount = fullGroups * 3 + (tail == 0 ? 0 : tail - 1)
    var failed = false
    let output = [UInt8](unsafeUninitializedCapacity: outputCount) { out, initialized in
      var o = 0
      var i = 0
      for _ in 0..<fullGroups {
        let a = table[Int(input[i])]
        let b = table[Int(input[i + 1])]
        let c = table[Int(input[i + 2])]
        let d = table[Int(input[i + 3])]
        if (a | b | c | d) & 0xC0 != 0 { failed = true }
        out[o] = a << 2 | b >> 4
        out[o + 1] = b << 4 | c >> 2
        out[o + 2] = c << 6 | d
        i += 4
        o += 3
      }
      if tail >= 2 {
        let a = table[Int(input[i])]
        let b = table[Int(input[i + 1])]
        let c = tail == 3 ? table[Int(input[i + 2])] : 0
        if (a | b | c) & 0xC0 != 0 { failed = true }
        out[o] = a << 2 | b >> 4
        if tail == 3 {
          out[o + 1] = b << 4 | c >> 2
          if c & 0x03 != 0 { failed = true }
        } else if b & 0x0F != 0 {
          failed = true
        }
      }
      initialized = outputCount
    }
    return failed ? nil : output
  }

  /// Encodes `bytes` in the given alphabet (padded for standard, unpadded for url).
  public static func encode<Bytes: Collection<UInt8>>(_ bytes: Bytes, alphabet: Alphabet)
    -> String
  {
    let symbols =
      alphabet == .standardPadded
      ? symbols(extra: (UInt8(ascii: "+"), UInt8(ascii: "/")))
      : symbols(extra: (UInt8(ascii: "-"), UInt8(ascii: "_")))
    let input = Array(bytes)
    var output: [UInt8] = []
    output.reserveCapacity((input.count + 2) / 3 * 4)
    var index = 0
    while index < input.count {
      let remaining = input.count - index
      let b0 = input[index]
      let b1 = remaining > 1 ? input[index + 1] : 0
      let b2 = remaining > 2 ? input[index + 2] : 0
      output.append(symbols[Int(b0 >> 2)])
      output.append(symbols[Int((b0 & 0x03) << 4 | b1 >> 4)])
      if remaining > 1 { output.append(symbols[Int((b1 & 0x0F) << 2 | b2 >> 6)]) }
      if remaining > 2 { output.append(symbols[Int(b2 & 0x3F)]) }
      index += 3
    }
    if alphabet == .standardPadded {
      while output.count % 4 != 0 { output.append(UInt8(ascii: "=")) }
    }
    return String(decoding: output, as: UTF8.self)
  }
}
