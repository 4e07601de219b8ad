import Foundation
import StoreLedger
import StoreLedgerCore
import Synchronization

/// Checks a JSON value against a schema of the served OpenAPI document: the subset of JSON
/// Schema the document uses (`type`, `enum`, `const`, `pattern`, `format` date-time and uuid,
/// lengths, bounds, `required`, `properties`, `additionalProperties: false`, `items`, item
/// counts, `oneOf`, `allOf` and `$ref` into the document's components). The document is the
/// one statement of what a request may hold; the server refuses exactly what it forbids.
struct SchemaCheck: Sendable {
  /// The document's `components/schemas`, by name.
  private let components: [String: JSONValue]

  init(components: [String: JSONValue]) {
    self.components = components
  }

  /// Why `value` does not fit `schema`, naming where (`at`); nil when it fits.
  func violation(of schema: JSONValue, by value: JSONValue, at place: String) -> String? {
    guard case .object(let rules) = schema else { return nil }
    if case .string(let reference)? = rules["$ref"] {
      let name = reference.split(separator: "/").last.map(String.init) ?? ""
      guard let target = components[name] else { return nil }
      return violation(of: target, by: value, at: place)
    }
    if case .array(let parts)? = rules["allOf"] {
      for part in parts {
        if let problem = violation(of: part, by: value, at: place) { return problem }
      }
    }
    if case .array(let choices)? = rules["oneOf"] {
      let fitting = choices.filter { violation(of: $0, by: value, at: place) == nil }.count
      if fitting != 1 {
        return fitting == 0
          ? "\(place) fits none of the forms this document allows"
          : "\(place) fits more than one of the forms this document allows"
      }
    }
    if let problem = typeViolation(rules["type"], value, place) { return problem }
    if case .array(let allowed)? = rules["enum"], !allowed.contains(value) {
      let names = allowed.map(Self.text).joined(separator: ", ")
      return "\(place) is one of \(names)"
    }
    switch value {
    case .string(let text): return stringViolation(rules, text, place)
    case .number(let number): return numberViolation(rules, number, place)
    case .array(let items): return arrayViolation(rules, items, place)
    case .object(let members): return objectViolation(rules, members, place)
    default: return nil
    }
  }

  private func typeViolation(_ type: JSONValue?, _ value: JSONValue, _ place: String) -> String? {
    let allowed: [String]
    switch type {
    case .string(let one)?: allowed = [one]
    case .array(let many)?:
      allowed = many.compactMap { if case .string(let t) = $0 { t } else { nil } }
    default: return nil
    }
    let fits = allowed.contains { kind in
      switch (kind, value) {
      case ("string", .string), ("boolean", .bool), ("null", .null), ("array", .array),
        ("object", .object), ("number", .number):
        true
      case ("integer", .number(let number)): number.rounded() == number && number.isFinite
      default: false
      }
    }
    return fits ? nil : "\(place) must be \(allowed.joined(separator: " or "))"
  }

  private func stringViolation(_ rules: [String: JSONValue], _ text: String, _ place: String)
    -> String?
  {
    // JSON Schema counts a string's length in code points, not in characters: "a" with a
    // combining accent is one character and two code points.
    // A scalar is one to four UTF-8 bytes: the byte count (known without a pass) often
    // decides, and the scalars are counted only when it does not.
    let bytes = Double(text.utf8.count)
    var counted: Double?
    func length() -> Double {
      if let counted { return counted }
      let length = Double(text.unicodeScalars.count)
      counted = length
      return length
    }
    if case .number(let minimum)? = rules["minLength"], bytes / 4 < minimum, length() < minimum {
      return "\(place) has at least \(Int(minimum)) characters"
    }
    if case .number(let maximum)? = rules["maxLength"], bytes > maximum, length() > maximum {
      return "\(place) has at most \(Int(maximum)) characters"
    }
    if case .string(let pattern)? = rules["pattern"], !Self.matches(text, pattern) {
      // A pattern a person cannot read is said in words where the document gives them.
      if case .string(let rule)? = rules["x-rule"] { return "\(place) must be \(rule)" }
      return "\(place) must match \(pattern)"
    }
    switch rules["format"] {
    case .string("date-time")? where InstantText.rfc3339(text) == nil:
      return "\(place) must be an RFC 3339 date-time, like 2026-11-22T08:00:00Z"
    case .string("uuid")? where UUID(uuidString: text) == nil:
      return "\(place) must be a UUID"
    default: return nil
    }
  }

  private func numberViolation(_ rules: [String: JSONValue], _ number: Double, _ place: String)
    -> String?
  {
    if case .number(let minimum)? = rules["minimum"], number < minimum {
      return "\(place) must be at least \(Self.text(.number(minimum)))"
    }
    if case .number(let maximum)? = rules["maximum"], number > maximum {
      return "\(place) must be at most \(Self.text(.number(maximum)))"
    }
    return nil
  }

  private func arrayViolation(_ rules: [String: JSONValue], _ items: [JSONValue], _ place: String)
    -> String?
  {
    if case .number(let minimum)? = rules["minItems"], Double(items.count) < minimum {
      return "\(place) holds at least \(Int(minimum)) items"
    }
    if case .number(let maximum)? = rules["maxItems"], Double(items.count) > maximum {
      return "\(place) holds at most \(Int(maximum)) items"
    }
    if rules["uniqueItems"] == .bool(true), Set(items).count != items.count {
      return "\(place) names each item once"
    }
    if let schema = rules["items"] {
      for (index, item) in items.enumerated() {
        if let problem = violation(of: schema, by: item, at: "\(place)[\(index)]") {
          return problem
        }
      }
    }
    return nil
  }

  private func objectViolation(
    _ rules: [String: JSONValue], _ members: [String: JSONValue], _ place: String
  ) -> String? {
    if case .array(let required)? = rules["required"] {
      for case .string(let name) in required where members[name] == nil {
        return "\(place) needs `\(name)`"
      }
    }
    var properties: [String: JSONValue] = [:]
    if case .object(let declared)? = rules["properties"] { properties = declared }
    for (name, value) in members.sorted(by: { $0.key < $1.key }) {
      let where_ = place == "the body" ? "`\(name)`" : "\(place).\(name)"
      if let schema = properties[name] {
        if let problem = violation(of: schema, by: value, at: where_) { return problem }
      } else if rules["additionalProperties"] == .bool(false) {
        return "\(where_) is not a member this document allows"
      }
    }
    return nil
  }

  /// A parameter's text as the JSON value its schema's type reads it as (a number for
  /// `integer` and `number`, a flag for `boolean`); as text when it is not one.
  func value(_ text: String, as schema: JSONValue) -> JSONValue {
    switch type(of: schema) {
    case "integer" where Self.matches(text, "^-?[0-9]+$"):
      Double(text).map(JSONValue.number) ?? .string(text)
    case "number": Double(text).map(JSONValue.number) ?? .string(text)
    case "boolean": text == "true" ? .bool(true) : text == "false" ? .bool(false) : .string(text)
    default: .string(text)
    }
  }

  private func type(of schema: JSONValue) -> String? {
    guard case .object(let rules) = schema else { return nil }
    if case .string(let reference)? = rules["$ref"] {
      return components[reference.split(separator: "/").last.map(String.init) ?? ""]
        .flatMap(type(of:))
    }
    if case .string(let type)? = rules["type"] { return type }
    return nil
  }

  static func matches(_ text: String, _ pattern: String) -> Bool {
    switch compiled(pattern) {
    case .simple(let simple): return simple.matches(text)
    case .expression(let expression): return matches(text, expression)
    case nil: return true
    }
  }

  private static func matches(_ text: String, _ expression: NSRegularExpression) -> Bool {
    let range = NSRange(text.startIndex..., in: text)
    return expression.firstMatch(in: text, range: range) != nil
  }

  /// A pattern as it is matched: in one pass when it is a run of character classes
  /// (``SimplePattern``), by ICU otherwise.
  private enum Compiled: @unchecked Sendable {
    case simple(SimplePattern)
    /// Immutable once made, and safe to match from several threads at once.
    case expression(NSRegularExpression)
  }

  /// Each pattern compiled once per process: compiling one costs more than matching a
  /// request's value against it, and the document holds a few dozen. A pattern that does not
  /// compile is remembered as such (and lets every value through, as before).
  private static let patterns = Mutex<[String: Compiled?]>([:])

  private static func compiled(_ pattern: String) -> Compiled? {
    if let known = patterns.withLock({ $0[pattern] }) { return known }
    let made: Compiled? =
      if let simple = SimplePattern(pattern) {
        .simple(simple)
      } else {
        (try? NSRegularExpression(pattern: icuPattern(pattern))).map { .expression($0) }
      }
    patterns.withLock { $0[pattern] = made }
    return made
  }

  /// `pattern`, a JSON Schema (ECMA-262) expression, as ICU reads it the same way: ECMA's `$`
  /// holds only at the end of the text, ICU's also before one final line break, so a `$`
  /// outside a class becomes ICU's `\z`. Without it `"abc\n"` would pass `^[a-z]+$`.
  static func icuPattern(_ pattern: String) -> String {
    var result = ""
    var escaped = false
    var classDepth = 0
    for character in pattern {
      if escaped {
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else if character == "[" {
        classDepth += 1
      } else if character == "]", classDepth > 0 {
        classDepth -= 1
      } else if character == "$", classDepth == 0 {
        result += "\\z"
        continue
      }
      result.append(character)
    }
    return result
  }

  static func text(_ value: JSONValue) -> String {
    switch value {
    case .string(let text): text
    case .number(let number) where number.rounded() == number: String(Int64(number))
    case .number(let number): String(number)
    case .bool(let flag): String(flag)
    case .null: "null"
    default: "a value"
    }
  }
}
