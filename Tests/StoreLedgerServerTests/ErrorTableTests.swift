import Foundation
import StoreLedger
import StoreLedgerCore
import Testing

@testable import StoreLedgerServer

/// Errors from one table: docs/reference/errors.md lists every code the server answers, each
/// once, with the statuses the library maps it to; the OpenAPI document lists the same codes,
/// and every error status it documents is in the table.
struct ErrorTableTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The table's rows: each code (a row may name several) with its statuses.
  static func table() throws -> [String: Set<Int>] {
    let text = try String(
      contentsOf: root.appendingPathComponent("docs/reference/errors.md"), encoding: .utf8)
    var rows: [String: Set<Int>] = [:]
    for line in text.split(separator: "\n") where line.hasPrefix("| `") {
      let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      guard cells.count >= 2 else { continue }
      let codes = cells[0].split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(
          in: CharacterSet(charactersIn: "`"))
      }
      let statuses = Set(
        cells[1].split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) })
      for code in codes {
        #expect(rows[code] == nil, "\(code) is listed twice")
        rows[code] = statuses
      }
    }
    return rows
  }

  @Test func everyCodeTheServerAnswersIsListedOnceWithItsStatus() throws {
    let table = try Self.table()
    let answered = Set(APIError.ownCodes).union(LedgerError.Code.all.map(\.rawValue))
    #expect(Set(table.keys) == answered)
    // The library's own mapping: the table says each code's status.
    for code in LedgerError.Code.all where code != .appleRefused {
      let status = LedgerError(code, "").httpStatus
      #expect(table[code.rawValue]?.contains(status) == true, "\(code.rawValue) answers \(status)")
    }
    #expect(table["verification_failed"] == [401])
    // A 409 is a conflict with what the ledger holds, never a malformed request.
    for code in ["invalid_request", "invalid_body", "invalid_cursor", "unknown_entitlement"] {
      #expect(table[code]?.contains(409) == false, "\(code)")
    }
  }

  @Test func theDocumentAndTheTableListTheSameCodesAndStatuses() throws {
    let table = try Self.table()
    let document = try JSONDecoder().decode(JSONValue.self, from: try OpenAPIDocument.data())
    let listed = document["components"]?["schemas"]?["Error"]?["properties"]?["error"]?[
      "properties"]?["code"]?["enum"]?.array?.compactMap { value -> String? in
        if case .string(let code) = value { code } else { nil }
      }
    #expect(Set(listed ?? []) == Set(table.keys))
    var documented: Set<Int> = []
    if case .object(let paths)? = document["paths"] {
      for case .object(let operations) in paths.values {
        for case .object(let operation) in operations.values {
          guard case .object(let responses)? = operation["responses"] else { continue }
          documented.formUnion(responses.keys.compactMap(Int.init).filter { $0 >= 400 })
        }
      }
    }
    let inTable = table.values.reduce(into: Set<Int>()) { $0.formUnion($1) }
    #expect(
      !documented.isEmpty && documented.isSubset(of: inTable), "\(documented.subtracting(inTable))")
  }
}
