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
