/// Decodes `Decodable` values from JSON like Foundation's `JSONDecoder` with its default
/// strategies, several times faster on the ledger's payloads: the text is scanned once into a
/// flat array of token positions, object members are found by a hash of their key, and no
/// string is made until a value is asked for.
///
/// Errors are `DecodingError`s as `JSONDecoder` throws them; a text that is not JSON is
/// `dataCorrupted` with a ``JSONSyntaxError`` beneath. `Data` is read from base64 and `Date`
/// as seconds since 2001 (JSONDecoder's defaults); `URL` and `Decimal` are not supported.
public struct FlatJSONDecoder: Sendable {
  public init() {}

  public func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws
    -> T
  {
    if let decoded = try bytes.withContiguousStorageIfAvailable({
      try decode(type, fromBuffer: UnsafeRawBufferPointer($0))
    }) {
      return decoded
    }
    return try Array(bytes).withUnsafeBytes { try decode(type, fromBuffer: $0) }
  }

  public func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
    var text = text
    return try text.withUTF8 { try decode(type, fromBuffer: UnsafeRawBufferPointer($0)) }
  }

  /// A type that reads itself member by member, without `Decodable`'s dynamic casts.
  func decode<T: FlatJSONObjectDecodable>(_ type: T.Type, fromBuffer bytes: UnsafeRawBufferPointer)
    throws -> T
  {
    try JSONValueDecoder(Self.document(of: bytes)).flatValue(T.self, at: 0)
  }

  private func decode<T: Decodable>(_ type: T.Type, fromBuffer bytes: UnsafeRawBufferPointer)
    throws -> T
  {
    try JSONValueDecoder(Self.document(of: bytes)).value(T.self, at: 0, key: nil)
  }

  /// The scanned text; a text that is not JSON is `dataCorrupted`, as JSONDecoder has it.
  /// `borrowing`: see ``JSONDocument/init(borrowing:)``.
  static func document(of bytes: UnsafeRawBufferPointer, borrowing: Bool = false) throws
    -> JSONDocument
  {
    do {
      return try borrowing ? JSONDocument(borrowing: bytes) : JSONDocument(copying: bytes)
    } catch {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: [], debugDescription: "The given data was not valid JSON.",
          underlyingError: error))
    }
  }
}
