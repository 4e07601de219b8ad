import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Crypto
import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Apple's App Store Server Library for Python as the judge of what StoreLedger signs and
/// reads beside the simulator: promotional offer signatures (both forms), introductory offer
/// eligibility JWS and receipts' transaction ids. `scripts/test` installs the library
/// (`.build/judges`, JUDGES_PYTHON); under CI=true a missing judge is a failure.
@Suite(.enabled(if: AppleLibraryJudge.python != nil || AppleLibraryJudge.isCI))
struct AppleLibraryJudgeTests {
  typealias J = AppleLibraryJudge

  struct Answer: Decodable {
    struct Token: Decodable {
      let header: [String: JSONValue]
      let claims: [String: JSONValue]
    }
    struct Compared: Decodable {
      let verifies: Bool
      let ours: Token
      let apple: Token
    }
    let legacy: [Bool]
    let jws: [Compared]
    let receipts: [String?]
  }

  @Test func applesLibraryAgreesWithOurSignaturesAndReceipts() throws {
    guard let python = J.python else {
      Issue.record("Apple's library is not installed (scripts/test installs it)")
      return
    }
    let privateKey = P256.Signing.PrivateKey()
    let key = APIKey(
      keyId: "JUDGE01", issuerId: "5f6e7d8c-0000-4000-8000-0000000000aa",
      bundleId: "com.example.app", privateKey: privateKey)
    var legacy: [[String: JSONValue]] = []
    for (index, token) in ["7E3FB20B-4CDB-47CC-936D-99D65F608138", "", nil].enumerated() {
      let signature = try PromotionalOfferSignature.sign(
        productId: "pro.monthly.\(index)", offerIdentifier: "SPRING\(index)",
        appAccountToken: token, key: key)
      legacy.append([
        "productId": .string(signature.productId),
        "offerIdentifier": .string(signature.offerIdentifier),
        "appAccountToken": .string(token ?? ""), "nonce": .string(signature.nonce),
        "timestamp": .number(Double(signature.timestamp)),
        "signature": .string(signature.signature),
      ])
    }
    var jws: [[String: JSONValue]] = []
    for transactionId in ["2000000123456789", nil] {
      let signed = try AppStoreRequestSignature.promotionalOffer(
        productId: "pro.yearly", offerIdentifier: "WINBACK", transactionId: transactionId,
        key: key)
      var item: [String: JSONValue] = [
        "kind": .string("promotional"), "productId": .string("pro.yearly"),
        "offerIdentifier": .string("WINBACK"), "jws": .string(signed.jws),
      ]
      if let transactionId { item["transactionId"] = .string(transactionId) }
      jws.append(item)
    }
    for allowed in [true, false] {
      let signed = try AppStoreRequestSignature.introductoryOfferEligibility(
        productId: "pro.monthly", allowIntroductoryOffer: allowed,
        transactionId: "2000000123456790", key: key)
      jws.append([
        "kind": .string("introductory"), "productId": .string("pro.monthly"),
        "allowIntroductoryOffer": .bool(allowed), "transactionId": .string("2000000123456790"),
        "jws": .string(signed.jws),
      ])
    }
    var receipts: [[String: JSONValue]] = []
    var expected: [String?] = []
    for name in ["xcode-app-receipt-empty", "xcode-app-receipt-with-transaction"] {
      let receipt = try SharedFixtures.xcode(name).trimmingCharacters(in: .whitespacesAndNewlines)
      receipts.append(["kind": .string("app"), "receipt": .string(receipt)])
      expected.append(try ReceiptTransactionIdentifier.fromAppReceipt(receipt))
    }
    for id in ["2000000000000001", "1000000987654321", "7"] {
      let app = SimulatedReceipt.appReceipt(transactionId: id)
      let legacyReceipt = SimulatedReceipt.legacyTransactionReceipt(transactionId: id)
      receipts.append(["kind": .string("app"), "receipt": .string(app)])
      expected.append(try ReceiptTransactionIdentifier.fromAppReceipt(app))
      receipts.append(["kind": .string("transaction"), "receipt": .string(legacyReceipt)])
      expected.append(try ReceiptTransactionIdentifier.fromLegacyTransactionReceipt(legacyReceipt))
    }
    let request: [String: JSONValue] = [
      "key": .string(privateKey.pemRepresentation), "keyId": .string(key.keyId),
      "issuerId": .string(key.issuerId), "bundleId": .string(key.bundleId),
      "legacy": .array(legacy.map(JSONValue.object)), "jws": .array(jws.map(JSONValue.object)),
      "receipts": .array(receipts.map(JSONValue.object)),
    ]
    let answer = try JSONDecoder().decode(
      Answer.self, from: try Self.run(python, input: try JSONEncoder().encode(request)))

    #expect(answer.legacy == Array(repeating: true, count: legacy.count))
    #expect(answer.jws.count == jws.count)
    for (index, compared) in answer.jws.enumerated() {
      #expect(compared.verifies, "JWS \(index) does not verify for Apple")
      #expect(compared.ours.header["alg"] == compared.apple.header["alg"])
      #expect(compared.ours.header["kid"] == compared.apple.header["kid"])
      #expect(Set(compared.ours.claims.keys) == Set(compared.apple.claims.keys), "JWS \(index)")
      for (name, value) in compared.apple.claims where !["iat", "nonce"].contains(name) {
        #expect(compared.ours.claims[name] == value, "JWS \(index): \(name)")
      }
    }
    #expect(answer.receipts == expected)
    #expect(expected.compactMap { $0 }.count == 7)
  }

  private static func run(_ python: String, input: Data) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [
      J.packageRoot.appendingPathComponent("scripts/judges/signatures_and_receipts.py").path
    ]
    let (stdin, stdout) = (Pipe(), Pipe())
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    stdin.fileHandleForWriting.write(input)
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    return output
  }
}

/// Where Apple's library is: JUDGES_PYTHON, as `scripts/test` exports it.
enum AppleLibraryJudge {
  static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let python: String? = {
    guard let path = ProcessInfo.processInfo.environment["JUDGES_PYTHON"], !path.isEmpty else {
      return nil
    }
    let absolute = path.hasPrefix("/") ? path : packageRoot.appendingPathComponent(path).path
    return FileManager.default.isExecutableFile(atPath: absolute) ? absolute : nil
  }()
}
