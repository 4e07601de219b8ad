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

/// The hash object keys are compared by before their bytes are: FNV-1a over the key's UTF-8.
enum JSONKeyHash {
  static let seed: UInt32 = 2_166_136_261

  @inline(__always)
  static func adding(_ byte: UInt8, to hash: UInt32) -> UInt32 {
    (hash ^ UInt32(byte)) &* 16_777_619
  }

  static func of(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    var hash = seed
    for byte in bytes { hash = adding(byte, to: hash) }
    return hash
  }
}
