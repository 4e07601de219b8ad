import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Every value the real-apple README lists ("Values a decoder must produce") comes out of the
/// decoded models: each model is re-encoded and looked up field by field.
@Suite struct RealAppleValuesTests {
  struct Expectation: Sendable, CustomTestStringConvertible {
    var file: String
    var section: String
    var values: [(String, String)]
    var testDescription: String { "\(file) \(section)" }
  }

  static let expectations: [Expectation] = {
    guard let readme = try? SharedFixtures.text("conformance/real-apple/README.md"),
      let start = readme.range(of: "## Values a decoder must produce"),
      let end = readme.range(of: "## Things these samples exercise")
    else { return [] }
    var result: [Expectation] = []
    var file = ""
    for line in readme[start.upperBound..<end.lowerBound].split(separator: "\n") {
      if line.hasPrefix("* `") {
        file = String(line.dropFirst(3).prefix { $0 != "`" })
      } else if line.hasPrefix("  * ") {
        let body = line.dropFirst(4)
        let section =
          body.contains(":") ? String(body.prefix { $0 != ":" && $0 != " " }) : "payload"
        result.append(Expectation(file: file, section: section, values: pairs(in: String(body))))
      }
    }
    return result
  }()

  /// `key="text"` and `key=number` pairs, in order of appearance.
  static func pairs(in text: String) -> [(String, String)] {
    let pattern = /([A-Za-z]+)=("[^"]*"|-?[0-9]+)/
    return text.matches(of: pattern).map { (String($0.output.1), String($0.output.2)) }
  }

  @Test func readmeListsEveryFile() throws {
    #expect(Set(Self.expectations.map(\.file)) == Set(try SharedFixtures.realAppleFiles()))
  }

  @Test(arguments: expectations)
  func decodedModelCarriesTheListedValues(expectation: Expectation) async throws {
    let object = try await Self.decodedObject(file: expectation.file, section: expectation.section)
    #expect(!expectation.values.isEmpty)
    for (key, literal) in expectation.values {
      let actual = try #require(object[key], "\(key) missing")
      if literal.hasPrefix("\"") {
        #expect(actual as? String == String(literal.dropFirst().dropLast()), "\(key)")
      } else {
        #expect((actual as? NSNumber)?.int64Value == Int64(literal), "\(key)")
      }
    }
  }

  /// The model of `section` of `file`, encoded back to a JSON object.
  static func decodedObject(file: String, section: String) async throws -> [String: Any] {
    let verifier = try SignedDataVerifier(configuration: VerifierConfiguration())
    let jws = try SharedFixtures.realApple(file)
    let model: any Encodable
    switch (try SignedDataKind.of(jws), section) {
    case (.notification, "data.signedTransactionInfo"):
      model = try #require(try await verifier.verifyNotification(jws).transaction?.payload)
    case (.notification, "data.signedRenewalInfo"):
      model = try #require(try await verifier.verifyNotification(jws).renewalInfo?.payload)
    case (.notification, "data"):
      model = try #require(try await verifier.verifyNotification(jws).payload.data)
    case (.notification, _): model = try await verifier.verifyNotification(jws).payload
    case (.transaction, _): model = try await verifier.verifyTransaction(jws).payload
    default: model = try await verifier.verifyRenewalInfo(jws).payload
    }
    let encoded = try JSONEncoder().encode(model)
    return try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
  }
}
