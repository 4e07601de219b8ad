import Foundation
import StoreLedgerCore
import Testing

@testable import StoreLedgerServer

/// The subset of JSON Schema the server checks requests with, rule by rule.
@Suite struct SchemaCheckTests {
  static let check = SchemaCheck(components: [
    "Token": .object(["type": .string("string"), "pattern": .string("^[0-9a-f]{4}$")])
  ])

  func problem(_ schema: JSONValue, _ value: JSONValue) -> String? {
    Self.check.violation(of: schema, by: value, at: "`x`")
  }

  @Test func integersAreWholeNumbersOfAnySizeWithinTheirBounds() {
    let schema: JSONValue = .object([
      "type": .string("integer"), "minimum": .number(0), "maximum": .number(9_007_199_254_740_991),
    ])
    #expect(problem(schema, .number(12)) == nil)
    #expect(problem(schema, .number(1.5)) == "`x` must be integer")
    #expect(problem(schema, .number(-1)) == "`x` must be at least 0")
    // Larger than 64 bits: a whole number beyond the maximum, not "not an integer".
    let huge = Self.check.value("17038721547811851382875488256", as: schema)
    #expect(problem(schema, huge) == "`x` must be at most 9007199254740991")
    #expect(Self.check.value("1e3", as: schema) == .string("1e3"))
  }

  @Test func stringsReferencesEnumsAndFormats() {
    #expect(
      problem(.object(["$ref": .string("#/components/schemas/Token")]), .string("0a1b")) == nil)
    #expect(
      problem(.object(["$ref": .string("#/components/schemas/Token")]), .string("xyz"))
        == "`x` must match ^[0-9a-f]{4}$")
    let kinds: JSONValue = .object(["enum": .array([.string("a"), .string("b"), .null])])
    #expect(problem(kinds, .null) == nil)
    #expect(problem(kinds, .string("c")) == "`x` is one of a, b, null")
    let date: JSONValue = .object(["type": .string("string"), "format": .string("date-time")])
    #expect(problem(date, .string("2026-11-27t06:00:00z")) == nil)
    #expect(problem(date, .string("2026-11-27")) != nil)
    // Lengths in code points, as JSON Schema counts them: "á" written with a combining accent
    // is one character and two code points (schemathesis sent such text).
    let short: JSONValue = .object(["type": .string("string"), "maxLength": .number(3)])
    #expect(problem(short, .string("a\u{0301}b")) == nil)
    #expect(problem(short, .string("a\u{0301}b\u{0301}")) == "`x` has at most 3 characters")
  }

  /// The document's `Instant` pattern accepts exactly what ``InstantText`` reads: a value
  /// that fits the document is never refused (schemathesis sent `0000-00`, which the old
  /// pattern allowed), and the server's reader takes nothing the document forbids.
  @Test func theInstantPatternIsTheReadersRule() throws {
    let document = try JSONSerialization.jsonObject(with: OpenAPIDocument.data()) as? [String: Any]
    let components = document?["components"] as? [String: Any]
    let instant = (components?["schemas"] as? [String: Any])?["Instant"] as? [String: Any]
    let pattern = try #require(instant?["pattern"] as? String)
    var candidates = ["0", "1767225600000", "99999999999999", "100000000000000", "", "-1"]
    for year in [
      "0000", "1200", "1600", "1969", "1970", "1972", "1999", "2000", "2024", "2026", "2100",
      "2400", "9999",
    ] {
      for month in ["00", "01", "02", "04", "12", "13"] {
        candidates.append("\(year)-\(month)")
        for day in ["00", "01", "28", "29", "30", "31", "32"] {
          candidates.append("\(year)-\(month)-\(day)")
        }
      }
      for time in [
        "T00:00:00Z", "t23:59:60z", "T24:00:00Z", "T12:60:00Z", "T12:00:61Z", "T12:00:00.5Z",
        "T12:00:00.123456789012+23:59", "T12:00:00+24:00", "T12:00:00-00:60", "T12:00:00",
        " 12:00:00Z", "T12:00Z", "T12:00:00.Z",
      ] {
        candidates.append("\(year)-01-01\(time)")
        candidates.append("\(year)-12-31\(time)")
      }
    }
    for text in candidates {
      #expect(
        SchemaCheck.matches(text, pattern) == (InstantText.parse(text) != nil),
        "\(text): the pattern and the reader disagree")
    }
    // A zone that carries a time past 1970 or 9999 reads as the edge.
    #expect(InstantText.parse("1970-01-01T00:00:00+01:00")?.milliseconds == 0)
    #expect(InstantText.parse("9999-12-31T23:59:59-01:00")?.milliseconds == InstantText.latest)
  }

  @Test func objectsOneOfAndArrays() {
    let body: JSONValue = .object([
      "type": .string("object"), "required": .array([.string("endpoint")]),
      "additionalProperties": .bool(false),
      "properties": .object([
        "endpoint": .object(["type": .string("string")]),
        "position": .object(["type": .string("integer")]),
        "since": .object(["type": .string("string")]),
      ]),
      "oneOf": .array([
        .object(["required": .array([.string("position")])]),
        .object(["required": .array([.string("since")])]),
      ]),
    ])
    #expect(problem(body, .object(["endpoint": .string("e"), "position": .number(1)])) == nil)
    #expect(problem(body, .object(["position": .number(1)])) == "`x` needs `endpoint`")
    #expect(
      problem(body, .object(["endpoint": .string("e")]))
        == "`x` fits none of the forms this document allows")
    #expect(
      problem(
        body, .object(["endpoint": .string("e"), "position": .number(1), "since": .string("s")]))
        == "`x` fits more than one of the forms this document allows")
    #expect(
      problem(body, .object(["endpoint": .string("e"), "position": .number(1), "z": .null]))
        == "`x`.z is not a member this document allows")
    let list: JSONValue = .object([
      "type": .string("array"), "minItems": .number(1),
      "items": .object(["type": .string("string")]),
    ])
    #expect(problem(list, .array([])) == "`x` holds at least 1 items")
    #expect(problem(list, .array([.number(1)])) == "`x`[0] must be string")
  }
}
