import Foundation

/// The `Decoder` of ``FlatJSONDecoder``: one per decode, moved from value to value as nested
/// values are decoded (restored after each), and itself the single-value container.
final class JSONValueDecoder: Decoder, SingleValueDecodingContainer {
  let document: JSONDocument
  /// The token being decoded.
  private(set) var index = 0
  private(set) var codingPath: [any CodingKey] = []
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  init(_ document: JSONDocument, at index: Int = 0, codingPath: [any CodingKey] = []) {
    self.document = document
    self.index = index
    self.codingPath = codingPath
  }

  /// Decodes the token at `index` as `T`, with `key` added to the coding path meanwhile.
  func value<T: Decodable>(_ type: T.Type, at index: Int, key: (any CodingKey)?) throws -> T {
    if let primitive = try primitive(type, at: index, key: key) { return primitive }
    if document.tokens[index].kind == .object,
      let flat = T.self as? any FlatJSONObjectDecodable.Type,
      let value = try? flat.init(flat: JSONObjectReader(decoder: self, object: index))
    {
      return value as! T
    }
    return try decodable(type, at: index, key: key)
  }

  /// ``value(_:at:key:)`` for a type known to read itself member by member, without the
  /// dynamic casts (the root of every stored event).
  func flatValue<T: FlatJSONObjectDecodable>(_ type: T.Type, at index: Int) throws -> T {
    if document.tokens[index].kind == .object,
      let value = try? T(flat: JSONObjectReader(decoder: self, object: index))
    {
      return value
    }
    return try decodable(type, at: index, key: nil)
  }

  private func decodable<T: Decodable>(_ type: T.Type, at index: Int, key: (any CodingKey)?)
    throws -> T
  {
    let saved = self.index
    self.index = index
    if let key { codingPath.append(key) }
    defer {
      self.index = saved
      if key != nil { codingPath.removeLast() }
    }
    return try T(from: self)
  }

  /// The types JSONDecoder reads in its own way rather than through their `Decodable`.
  private func primitive<T: Decodable>(_ type: T.Type, at index: Int, key: (any CodingKey)?)
    throws -> T?
  {
    if T.self == String.self { return try document.string(at: index, path: path(key)) as? T }
    if T.self == Data.self {
      let text = try document.string(at: index, path: path(key))
      guard let data = Data(base64Encoded: text) else {
        throw DecodingError.dataCorrupted(
          .init(codingPath: path(key), debugDescription: "Encountered Data is not valid Base64."))
      }
      return data as? T
    }
    if T.self == URL.self {
      guard let url = URL(string: try document.string(at: index, path: path(key))) else {
        throw DecodingError.dataCorrupted(
          .init(codingPath: path(key), debugDescription: "Invalid URL string."))
      }
      return url as? T
    }
    if T.self == Decimal.self {
      let text = try document.numberText(at: index, path: path(key))
      guard let decimal = Decimal(string: text) else {
        throw DecodingError.dataCorrupted(
          .init(codingPath: path(key), debugDescription: "Number does not fit in Decimal."))
      }
      return decimal as? T
    }
    return nil
  }

  /// The coding path of a value in the current one, for errors.
  func path(_ key: (any CodingKey)?) -> [any CodingKey] {
    guard let key else { return codingPath }
    return codingPath + [key]
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    try document.require(.object, at: index, path: codingPath)
    return KeyedDecodingContainer(
      JSONKeyedContainer<Key>(decoder: self, object: index, codingPath: codingPath))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try document.require(.array, at: index, path: codingPath)
    return JSONUnkeyedContainer(decoder: self, array: index, codingPath: codingPath)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

  func decodeNil() -> Bool { document.isNull(index) }
  func decode(_ type: Bool.Type) throws -> Bool { try document.bool(at: index, path: codingPath) }
  func decode(_ type: String.Type) throws -> String {
    try document.string(at: index, path: codingPath)
  }
  func decode(_ type: Double.Type) throws -> Double {
    try document.floatingPoint(at: index, path: codingPath)
  }
  func decode(_ type: Float.Type) throws -> Float {
    try document.floatingPoint(at: index, path: codingPath)
  }
  func decode(_ type: Int.Type) throws -> Int { try integer() }
  func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
  func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
  func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
  func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
  func decode(_ type: UInt.Type) throws -> UInt { try integer() }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
  func decode<T: Decodable>(_ type: T.Type) throws -> T { try value(type, at: index, key: nil) }

  private func integer<T: FixedWidthInteger>() throws -> T {
    try document.integer(at: index, path: codingPath)
  }
}
