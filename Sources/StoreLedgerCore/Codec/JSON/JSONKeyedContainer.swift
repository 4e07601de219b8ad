/// An object's members, found by a hash of the key, then its bytes.
struct JSONKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: JSONValueDecoder
  let object: Int
  let codingPath: [any CodingKey]

  private var document: JSONDocument { decoder.document }

  var allKeys: [Key] {
    document.members(of: object).compactMap { member in
      (try? document.string(at: member.key)).flatMap(Key.init(stringValue:))
    }
  }

  func contains(_ key: Key) -> Bool { valueIndex(key) != nil }

  private func valueIndex(_ key: Key) -> Int? { valueIndex(named: key.stringValue) }

  private func valueIndex(named name: String) -> Int? {
    var name = name
    return name.withUTF8 { utf8 in
      let raw = UnsafeRawBufferPointer(utf8)
      return document.member(of: object, named: raw, hash: JSONKeyHash.of(raw))
    }
  }

  private func required(_ key: Key) throws -> Int {
    guard let index = valueIndex(key) else {
      throw DecodingError.keyNotFound(
        key,
        .init(
          codingPath: codingPath,
          debugDescription: "No value associated with key \"\(key.stringValue)\"."))
    }
    return index
  }

  /// The value's token, nil when the key is absent or null.
  private func present(_ key: Key) -> Int? {
    guard let index = valueIndex(key), !document.isNull(index) else { return nil }
    return index
  }

  private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

  func decodeNil(forKey key: Key) throws -> Bool { document.isNull(try required(key)) }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    try document.bool(at: try required(key), path: path(key))
  }
  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    try document.string(at: try required(key), path: path(key))
  }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try document.floatingPoint(at: try required(key), path: path(key))
  }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    try document.floatingPoint(at: try required(key), path: path(key))
  }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try decoder.value(type, at: try required(key), key: key)
  }

  private func integer<T: FixedWidthInteger>(_ key: Key) throws -> T {
    try document.integer(at: try required(key), path: path(key))
  }

  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
    try present(key).map { try document.bool(at: $0, path: path(key)) }
  }
  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    try present(key).map { try document.string(at: $0, path: path(key)) }
  }
  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    try present(key).map { try document.floatingPoint(at: $0, path: path(key)) }
  }
  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
    try present(key).map { try document.floatingPoint(at: $0, path: path(key)) }
  }
  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optional(key) }
  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optional(key) }
  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
    try optional(key)
  }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
    try optional(key)
  }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
    try optional(key)
  }
  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optional(key) }
  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
    try optional(key)
  }
  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
    try optional(key)
  }
  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
    try optional(key)
  }
  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
    try optional(key)
  }
  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    try present(key).map { try decoder.value(type, at: $0, key: key) }
  }

  private func optional<T: FixedWidthInteger>(_ key: Key) throws -> T? {
    try present(key).map { try document.integer(at: $0, path: path(key)) }
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key)
    throws -> KeyedDecodingContainer<NestedKey>
  {
    let index = try required(key)
    try document.require(.object, at: index, path: path(key))
    return KeyedDecodingContainer(
      JSONKeyedContainer<NestedKey>(decoder: decoder, object: index, codingPath: path(key)))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    let index = try required(key)
    try document.require(.array, at: index, path: path(key))
    return JSONUnkeyedContainer(decoder: decoder, array: index, codingPath: path(key))
  }

  /// JSONDecoder's super key is "super"; a missing one decodes as null.
  func superDecoder() throws -> any Decoder {
    try superDecoder(at: valueIndex(named: "super"), key: JSONIndexKey.superKey)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    try superDecoder(at: valueIndex(key), key: key)
  }

  private func superDecoder(at index: Int?, key: any CodingKey) throws -> any Decoder {
    guard let index else {
      return JSONValueDecoder(try JSONDocument.null(), codingPath: codingPath + [key])
    }
    return JSONValueDecoder(document, at: index, codingPath: codingPath + [key])
  }
}
