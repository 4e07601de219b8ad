/// An array's elements, in order.
struct JSONUnkeyedContainer: UnkeyedDecodingContainer {
  let decoder: JSONValueDecoder
  let codingPath: [any CodingKey]
  let count: Int?
  private(set) var currentIndex = 0
  /// The token of the element at `currentIndex`.
  private var token: Int

  init(decoder: JSONValueDecoder, array: Int, codingPath: [any CodingKey]) {
    self.decoder = decoder
    self.codingPath = codingPath
    self.count = Int(decoder.document.tokens[array].info)
    self.token = array + 1
  }

  private var document: JSONDocument { decoder.document }

  var isAtEnd: Bool { currentIndex >= count! }

  private var elementPath: [any CodingKey] { codingPath + [JSONIndexKey(currentIndex)] }

  /// Reads the current element (given its token and, for errors, its coding path) and moves
  /// past it once `read` succeeds.
  private mutating func next<T>(
    _ type: Any.Type, _ read: (Int, () -> [any CodingKey]) throws -> T
  ) throws -> T {
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(
        type, .init(codingPath: elementPath, debugDescription: "Unkeyed container is at end."))
    }
    let (prefix, index) = (codingPath, currentIndex)
    let value = try read(token) { prefix + [JSONIndexKey(index)] }
    token = document.next(after: token)
    currentIndex += 1
    return value
  }

  mutating func decodeNil() throws -> Bool {
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(
        Any?.self,
        .init(codingPath: elementPath, debugDescription: "Unkeyed container is at end."))
    }
    guard document.isNull(token) else { return false }
    token += 1
    currentIndex += 1
    return true
  }

  mutating func decode(_ type: Bool.Type) throws -> Bool {
    let document = self.document
    return try next(type) { try document.bool(at: $0, path: $1()) }
  }
  mutating func decode(_ type: String.Type) throws -> String {
    let document = self.document
    return try next(type) { try document.string(at: $0, path: $1()) }
  }
  mutating func decode(_ type: Double.Type) throws -> Double { try floatingPoint() }
  mutating func decode(_ type: Float.Type) throws -> Float { try floatingPoint() }
  mutating func decode(_ type: Int.Type) throws -> Int { try integer() }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try integer() }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let (decoder, key) = (self.decoder, JSONIndexKey(currentIndex))
    return try next(type) { index, _ in try decoder.value(type, at: index, key: key) }
  }

  private mutating func integer<T: FixedWidthInteger>() throws -> T {
    let document = self.document
    return try next(T.self) { try document.integer(at: $0, path: $1()) }
  }

  private mutating func floatingPoint<T: BinaryFloatingPoint>() throws -> T {
    let document = self.document
    return try next(T.self) { try document.floatingPoint(at: $0, path: $1()) }
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    let decoder = self.decoder
    return try next(NestedKey.self) { index, path in
      let path = path()
      try decoder.document.require(.object, at: index, path: path)
      return KeyedDecodingContainer(
        JSONKeyedContainer<NestedKey>(decoder: decoder, object: index, codingPath: path))
    }
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let decoder = self.decoder
    return try next([Any].self) { index, path in
      let path = path()
      try decoder.document.require(.array, at: index, path: path)
      return JSONUnkeyedContainer(decoder: decoder, array: index, codingPath: path)
    }
  }

  mutating func superDecoder() throws -> any Decoder {
    let document = self.document
    return try next((any Decoder).self) { JSONValueDecoder(document, at: $0, codingPath: $1()) }
  }
}

/// The coding key of an array element, and JSONDecoder's "super".
struct JSONIndexKey: CodingKey {
  static let superKey = JSONIndexKey(stringValue: "super")

  let intValue: Int?
  private let name: String?

  init(_ index: Int) {
    intValue = index
    name = nil
  }

  init(stringValue: String) {
    intValue = nil
    name = stringValue
  }

  init?(intValue: Int) { self.init(intValue) }

  var stringValue: String { name ?? "Index \(intValue ?? 0)" }
}
