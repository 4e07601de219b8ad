/// Reads the members of one object of a ``JSONDocument`` straight into Swift values, for the
/// few types decoded millions of times (``FlatJSONObjectDecodable``). Each reader returns nil
/// for an absent or null member, as `decodeIfPresent` does, and throws
/// ``JSONObjectReader/Mismatch`` where `Decodable` would throw: the caller then decodes the
/// whole value again through `Decodable`, which throws the error JSONDecoder would.
struct JSONObjectReader {
  struct Mismatch: Error {}

  let decoder: JSONValueDecoder
  let object: Int

  private var document: JSONDocument { decoder.document }

  /// The member's token, nil when absent or null.
  @inline(__always)
  private func token(_ key: JSONMemberName) -> Int? {
    guard let index = document.member(of: object, named: key.bytes, hash: key.hash),
      document.tokens[index].kind != .null
    else { return nil }
    return index
  }

  /// Whether the member is there at all, null included.
  func contains(_ key: JSONMemberName) -> Bool {
    document.member(of: object, named: key.bytes, hash: key.hash) != nil
  }

  func string(_ key: JSONMemberName) throws -> String? {
    guard let index = token(key) else { return nil }
    guard document.tokens[index].kind == .string else { throw Mismatch() }
    return try document.string(at: index)
  }

  func integer<T: FixedWidthInteger>(_ key: JSONMemberName, as _: T.Type = T.self) throws -> T? {
    guard let index = token(key) else { return nil }
    guard document.tokens[index].kind == .number,
      let value = document.integer(at: index, as: T.self)
    else { throw Mismatch() }
    return value
  }

  func bool(_ key: JSONMemberName) throws -> Bool? {
    guard let index = token(key) else { return nil }
    switch document.tokens[index].kind {
    case .true: return true
    case .false: return false
    default: throw Mismatch()
    }
  }

  /// As ``Timestamp``'s `Decodable`: whole milliseconds, or a fraction rounded down.
  func timestamp(_ key: JSONMemberName) throws -> Timestamp? {
    guard let index = token(key) else { return nil }
    guard document.tokens[index].kind == .number else { throw Mismatch() }
    if let whole = document.integer(at: index, as: Int64.self) {
      return Timestamp(milliseconds: whole)
    }
    guard let fractional = document.double(at: index), fractional.isFinite,
      abs(fractional) < 9.2e18 as Double
    else { throw Mismatch() }
    return Timestamp(milliseconds: Int64(fractional.rounded(FloatingPointRoundingRule.down)))
  }

  func enumeration<E: OpenEnumeration>(_ key: JSONMemberName, as _: E.Type = E.self) throws -> E?
  where E.RawValue == String {
    try string(key).map(E.init(rawValue:))
  }

  func enumeration<E: OpenEnumeration>(_ key: JSONMemberName, as _: E.Type = E.self) throws -> E?
  where E.RawValue == Int32 {
    try integer(key, as: Int32.self).map(E.init(rawValue:))
  }

  func strings(_ key: JSONMemberName) throws -> [String]? {
    guard let index = token(key) else { return nil }
    guard document.tokens[index].kind == .array else { throw Mismatch() }
    var (strings, element) = ([String](), index + 1)
    strings.reserveCapacity(Int(document.tokens[index].info))
    for _ in 0..<document.tokens[index].info {
      guard document.tokens[element].kind == .string else { throw Mismatch() }
      strings.append(try document.string(at: element))
      element += 1
    }
    return strings
  }

  /// A member of any `Decodable` type, through its `Decodable` (for the rarer nested values).
  func decoded<T: Decodable>(_ key: JSONMemberName, as type: T.Type = T.self) throws -> T? {
    guard let index = token(key) else { return nil }
    return try decoder.value(type, at: index, key: JSONIndexKey(stringValue: "\(key.name)"))
  }

  /// A nested object read by its own fast path.
  func object<T: FlatJSONObjectDecodable>(_ key: JSONMemberName, as _: T.Type = T.self) throws -> T?
  {
    guard let index = token(key) else { return nil }
    guard document.tokens[index].kind == .object else { throw Mismatch() }
    return try T(flat: JSONObjectReader(decoder: decoder, object: index))
  }

  /// A nested object's reader, nil when absent or null.
  func nested(_ key: JSONMemberName) throws -> JSONObjectReader? {
    guard let index = token(key) else { return nil }
    guard document.tokens[index].kind == .object else { throw Mismatch() }
    return JSONObjectReader(decoder: decoder, object: index)
  }

  /// The kind of the member's value, nil when absent.
  func kind(_ key: JSONMemberName) -> JSONToken.Kind? {
    document.member(of: object, named: key.bytes, hash: key.hash).map { document.tokens[$0].kind }
  }
}

/// A type ``FlatJSONDecoder`` reads from an object member by member, without `Decodable`'s
/// containers. Its `init(flat:)` must decode exactly what its `Decodable` does (the tests
/// compare both on every field); on any doubt it throws and `Decodable` decides.
protocol FlatJSONObjectDecodable: Decodable {
  init(flat object: JSONObjectReader) throws
}
