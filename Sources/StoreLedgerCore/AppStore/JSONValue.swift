/// Any JSON value, for scenario expectations compared field by field.
public enum JSONValue: Hashable, Sendable, Codable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    case .string(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    }
  }

  /// Where `actual` differs from this expectation: every key the expectation names must be
  /// present with a matching value (other keys are allowed); arrays must have the same
  /// length and match element by element. Empty when it matches.
  public func mismatches(in actual: JSONValue, at path: String = "") -> [String] {
    switch (self, actual) {
    case (.object(let expected), .object(let found)):
      return expected.keys.sorted().flatMap { key -> [String] in
        let here = path.isEmpty ? key : "\(path).\(key)"
        guard let value = found[key] else {
          return ["\(here): missing (expected \(expected[key]!))"]
        }
        return expected[key]!.mismatches(in: value, at: here)
      }
    case (.array(let expected), .array(let found)):
      guard expected.count == found.count else {
        return ["\(path): \(found.count) elements, expected \(expected.count)"]
      }
      return zip(expected, found).enumerated().flatMap { index, pair in
        pair.0.mismatches(in: pair.1, at: "\(path)[\(index)]")
      }
    default:
      return self == actual ? [] : ["\(path): \(actual), expected \(self)"]
    }
  }
}

extension JSONValue: CustomStringConvertible {
  public var description: String {
    switch self {
    case .null: "null"
    case .bool(let value): "\(value)"
    case .number(let value):
      value == value.rounded() && abs(value) < 1e15 ? "\(Int64(value))" : "\(value)"
    case .string(let value): "\"\(value)\""
    case .array(let values): "[\(values.map(\.description).joined(separator: ", "))]"
    case .object(let fields):
      "{\(fields.keys.sorted().map { "\"\($0)\": \(fields[$0]!)" }.joined(separator: ", "))}"
    }
  }
}
