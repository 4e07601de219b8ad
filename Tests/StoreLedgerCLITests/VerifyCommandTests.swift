import Foundation
import StoreLedgerTestSupport
import Testing

/// `storeledger verify`: exit codes, output shapes and options, on real and test data.
@Suite struct VerifyCommandTests {
  let realApple = SharedFixtures.root.appendingPathComponent("conformance/real-apple").path
  let apple = SharedFixtures.root.appendingPathComponent("conformance/apple-swift-library").path

  func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  @Test func verifiedNotificationPrintsItsPayloadWithNestedJWSDecoded() throws {
    let result = try CommandLineRunner.run([
      "verify", "\(realApple)/notification-REFUND-sandbox-2025-10-16.jws",
      "--bundle-id", "com.loki-project.loki-messenger", "--environment", "Sandbox",
    ])
    #expect(result.status == 0, "\(result.standardError)")
    let payload = try json(result.standardOutput)
    #expect(payload["notificationType"] as? String == "REFUND")
    let data = try #require(payload["data"] as? [String: Any])
    let transaction = try #require(data["signedTransactionInfo"] as? [String: Any])
    #expect(transaction["transactionId"] as? String == "2000001032604840")
    #expect((transaction["revocationDate"] as? NSNumber)?.int64Value == 1_760_591_999_000)
    let renewal = try #require(data["signedRenewalInfo"] as? [String: Any])
    #expect(renewal["autoRenewProductId"] as? String == "com.getsession.org.pro_sub_3_months")
  }

  @Test func recognisesEachKindAndReportsItInTheEnvelope() throws {
    let files = [
      ("transaction-sandbox-2025-07-27.jws", "transaction"),
      ("renewal-sandbox-2023-05-23.jws", "renewalInfo"),
      ("notification-TEST-sandbox-2025-09-05.jws", "notification"),
    ]
    for (file, kind) in files {
      let result = try CommandLineRunner.run(["verify", "\(realApple)/\(file)", "--json"])
      #expect(result.status == 0, "\(file): \(result.standardError)")
      let envelope = try json(result.standardOutput)
      #expect(envelope["kind"] as? String == kind)
      #expect(envelope["verification"] as? String == "verified")
      #expect(envelope["payload"] is [String: Any])
    }
  }

  @Test func readsStandardInput() throws {
    let jws = try String(
      contentsOfFile: "\(realApple)/transaction-sandbox-2023-03-27.jws", encoding: .utf8)
    let result = try CommandLineRunner.run(["verify", "-"], standardInput: jws + "\n")
    #expect(result.status == 0, "\(result.standardError)")
    #expect(
      try json(result.standardOutput)["productId"] as? String
        == "com.app.qysmat.premium.child.individual.subscription")
  }

  @Test func failureExitsOneWithTheErrorCode() throws {
    let result = try CommandLineRunner.run([
      "verify", "\(realApple)/transaction-sandbox-2023-03-27.jws", "--bundle-id", "com.other",
    ])
    #expect(result.status == 1)
    #expect(result.standardOutput.isEmpty)
    #expect(result.standardError.hasPrefix("error: bundle_id_mismatch: "))
  }

  @Test func expiredCertificateAtNowFails() throws {
    let result = try CommandLineRunner.run([
      "verify", "\(realApple)/transaction-sandbox-2023-03-27.jws", "--at", "now",
    ])
    #expect(result.status == 1)
    #expect(result.standardError.hasPrefix("error: certificate_not_valid_at_time: "))
  }

  @Test func fixedTimeInsideTheLeafValiditySucceeds() throws {
    let result = try CommandLineRunner.run([
      "verify", "\(realApple)/transaction-sandbox-2023-03-27.jws", "--at", "2023-01-01T00:00:00Z",
    ])
    #expect(result.status == 0, "\(result.standardError)")
  }

  @Test func jsonErrorsGoToStandardOutputToo() throws {
    let result = try CommandLineRunner.run([
      "verify", "\(apple)/mock_signed_data/transactionInfo", "--json",
    ])
    #expect(result.status == 1)
    let error = try #require(try json(result.standardOutput)["error"] as? [String: Any])
    #expect(error["code"] as? String == "untrusted_root")
  }

  @Test func customRootCertificatesInDerAndPem() throws {
    let der = "\(apple)/certs/testCA.der"
    let accepted = try CommandLineRunner.run([
      "verify", "\(apple)/mock_signed_data/transactionInfo", "--root-cert", der, "--bundle-id",
      "com.example",
    ])
    #expect(accepted.status == 0, "\(accepted.standardError)")
    let pem = SharedFixtures.root.appendingPathComponent("certs/AppleRootCA-G3.pem").path
    let real = try CommandLineRunner.run([
      "verify", "\(realApple)/transaction-sandbox-2025-07-27.jws", "--root-cert", pem,
      "--root-cert", der,
    ])
    #expect(real.status == 0, "\(real.standardError)")
  }

  @Test func xcodeDataNeedsTheExplicitOption() throws {
    let file = "\(apple)/xcode/xcode-signed-renewal-info"
    let refused = try CommandLineRunner.run(["verify", file])
    #expect(refused.status == 1)
    #expect(refused.standardError.hasPrefix("error: unverified_environment_not_allowed: "))
    let decoded = try CommandLineRunner.run([
      "verify", file, "--allow-unverified-environments", "--json",
    ])
    #expect(decoded.status == 0, "\(decoded.standardError)")
    let envelope = try json(decoded.standardOutput)
    #expect(envelope["verification"] as? String == "unverified")
    #expect(envelope["kind"] as? String == "renewalInfo")
  }

  @Test(arguments: [
    ["verify", "x.jws", "--environment", "Production"],
    ["verify", "x.jws", "--environment", "Staging"],
    ["verify", "x.jws", "--at", "yesterday"],
    ["verify", "x.jws", "--app-apple-id", "abc"],
    ["verify", "--no-such-flag"],
    ["no-such-command"],
  ])
  func usageErrorsExitTwo(arguments: [String]) throws {
    let result = try CommandLineRunner.run(arguments)
    #expect(result.status == 2, "\(result.standardError)")
    #expect(!result.standardError.isEmpty)
  }

  @Test func unreadableFileExitsOne() throws {
    let result = try CommandLineRunner.run(["verify", "/nonexistent/file.jws"])
    #expect(result.status == 1)
    #expect(result.standardError.hasPrefix("error: unreadable_input: "))
  }

  @Test func helpShowsExamples() throws {
    let result = try CommandLineRunner.run(["verify", "--help"])
    #expect(result.status == 0)
    #expect(result.standardOutput.contains("Examples:"))
  }
}
