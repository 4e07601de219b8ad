/// One value of a scanned JSON text, in document order: an object is followed by its keys and
/// values alternately, an array by its elements, each with their own descendants.
struct JSONToken {
  enum Kind: UInt8 {
    case object, array, string, number, `true`, `false`, null
  }

  /// The first byte of the value; for a string, the byte after its opening quote.
  var start: UInt32
  /// Strings and numbers: the offset just past their content (a string's closing quote).
  /// Objects and arrays: the index of the token after their last descendant.
  var end: UInt32
  /// Object keys: a hash of the key's bytes (see ``JSONKeyHash``). Objects: the number of
  /// members; arrays: the number of elements.
  var info: UInt32
  var kind: Kind
  /// Strings: holds an escape sequence. Numbers: has a fraction or an exponent.
  var isComplex: Bool
}

/// The hash object keys are compared by before their bytes are: eight bytes at a time, each
/// word mixed by a multiply (a byte-at-a-time hash makes every key byte wait for the previous
/// one's multiply). Only ever compared within one process, so byte order does not matter.
enum JSONKeyHash {
  static func of(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    var hash = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
    var offset = 0
    while offset + 8 <= bytes.count {
      hash = mix(hash, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      offset += 8
    }
    if offset < bytes.count {
      var tail: UInt64 = 0
      for index in offset..<bytes.count {
        tail |= UInt64(bytes[index]) << UInt64(8 * (index - offset))
      }
      hash = mix(hash, tail)
    }
    return UInt32(truncatingIfNeeded: hash)
  }

  @inline(__always)
  private static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
    let mixed = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
    return mixed ^ (mixed >> 29)
  }
}
