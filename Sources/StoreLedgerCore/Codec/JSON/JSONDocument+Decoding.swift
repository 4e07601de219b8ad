/// Reading tokens as Swift values, with the `DecodingError`s JSONDecoder throws. Descriptions
/// name the JSON kinds only: decoders try types in turn (a JWS string or an object) and
/// formatting a type name for every failed try would cost more than the decoding.
extension JSONDocument {
  func isNull(_ index: Int) -> Bool { tokens[index].kind == .null }

  func require(_ kind: JSONToken.Kind, at index: Int, path: @autoclosure () -> [any CodingKey])
    throws
  {
    let found = tokens[index].kind
    guard found != kind else { return }
    let expected: Any.Type = kind == .object ? [String: Any].self : [Any].self
    throw mismatch(expected, kind.article, found: found, path: path())
  }

  func bool(at index: Int, path: @autoclosure () -> [any CodingKey]) throws -> Bool {
    switch tokens[index].kind {
    case .true: return true
    case .false: return false
    case let found: throw mismatch(Bool.self, "a boolean", found: found, path: path())
    }
  }

  func string(at index: Int, path: @autoclosure () -> [any CodingKey]) throws -> String {
    let found = tokens[index].kind
    guard found == .string else {
      throw mismatch(String.self, "a string", found: found, path: path())
    }
    do {
      return try string(at: index)
    } catch {
      throw DecodingError.dataCorrupted(
        .init(codingPath: path(), debugDescription: "Invalid string.", underlyingError: error))
    }
  }

  func numberText(at index: Int, path: @autoclosure () -> [any CodingKey]) throws -> String {
    let token = tokens[index]
    guard token.kind == .number else {
      throw mismatch(Double.self, "a number", found: token.kind, path: path())
    }
    return String(decoding: bytes[Int(token.start)..<Int(token.end)], as: UTF8.self)
  }

  func integer<T: FixedWidthInteger>(at index: Int, path: @autoclosure () -> [any CodingKey]) throws
    -> T
  {
    let found = tokens[index].kind
    guard found == .number else { throw mismatch(T.self, "a number", found: found, path: path()) }
    guard let value = integer(at: index, as: T.self) else {
      throw try doesNotFit(T.self, at: index, path: path())
    }
    return value
  }

  func floatingPoint<T: BinaryFloatingPoint>(
    at index: Int, path: @autoclosure () -> [any CodingKey]
  ) throws -> T {
    let found = tokens[index].kind
    guard found == .number else { throw mismatch(T.self, "a number", found: found, path: path()) }
    let double = double(at: index) ?? .nan
    let value = T(double)
    guard value.isFinite else {
      throw try doesNotFit(T.self, at: index, path: path())
    }
    return value
  }

  private func doesNotFit(_ type: Any.Type, at index: Int, path: [any CodingKey]) throws
    -> DecodingError
  {
    .dataCorrupted(
      .init(
        codingPath: path,
        debugDescription: "Parsed JSON number <\(try numberText(at: index, path: path))> "
          + "does not fit in \(type)."))
  }

  private func mismatch(
    _ type: Any.Type, _ expected: String, found: JSONToken.Kind, path: [any CodingKey]
  ) -> DecodingError {
    if found == .null {
      return .valueNotFound(
        type, .init(codingPath: path, debugDescription: "Expected \(expected) but found null."))
    }
    return .typeMismatch(
      type,
      .init(
        codingPath: path, debugDescription: "Expected \(expected) but found \(found.article)."))
  }
}

extension JSONToken.Kind {
  var article: String {
    switch self {
    case .object: "an object"
    case .array: "an array"
    case .string: "a string"
    case .number: "a number"
    case .true, .false: "a boolean"
    case .null: "null"
    }
  }
}
