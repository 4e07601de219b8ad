import Crypto
import Foundation
import StoreLedgerTestSupport
import Testing

@testable import AppStoreVerification

/// Apple's real intermediate and 2025 leaf validate to Apple Root CA - G3 within the leaf's
/// validity, and not outside it.
@Suite struct RealChainTests {
  let leaf: [UInt8]
  let intermediate: [UInt8]
  let validator = ChainValidator(roots: .apple, cacheCapacity: nil)

  init() throws {
    leaf = try SharedFixtures.bytes("certs/real-apple-chain/apple-receipt-signing-leaf-2025.cer")
    intermediate = try SharedFixtures.bytes("certs/real-apple-chain/apple-wwdr-g6-intermediate.cer")
  }

  func iso(_ text: String) -> Date { try! Date.ISO8601FormatStyle().parse(text) }

  @Test(arguments: ["2025-09-19T19:44:51Z", "2026-11-22T00:00:00Z", "2027-10-13T17:47:23Z"])
  func validatesInsideTheLeafValidity(time: String) async throws {
    let chain = try await validator.validate(
      leafDER: leaf, intermediateDER: intermediate, at: iso(time))
    #expect(chain.validFrom == iso("2025-09-19T19:44:51Z"))
    #expect(chain.validUntil == iso("2027-10-13T17:47:23Z"))
  }

  @Test(arguments: [
    "2025-09-19T19:44:50Z", "2027-10-13T17:47:24Z", "2020-01-01T00:00:00Z", "2040-01-01T00:00:00Z",
  ])
  func failsOutsideTheLeafValidity(time: String) async throws {
    let error = try await #require(throws: VerificationError.self) {
      try await validator.validate(leafDER: leaf, intermediateDER: intermediate, at: iso(time))
    }
    #expect(error.code == .certificateNotValidAtTime)
  }

  @Test func swappedCertificatesDoNotValidate() async throws {
    let error = try await #require(throws: VerificationError.self) {
      try await validator.validate(
        leafDER: intermediate, intermediateDER: leaf, at: iso("2026-01-01T00:00:00Z"))
    }
    #expect(error.code == .invalidCertificateChain)
  }

  @Test func rootIsNotAcceptedAsAnIntermediate() async throws {
    let root = try SharedFixtures.bytes("certs/real-apple-chain/apple-root-ca-g3.cer")
    let error = try await #require(throws: VerificationError.self) {
      try await validator.validate(
        leafDER: leaf, intermediateDER: root, at: iso("2026-01-01T00:00:00Z"))
    }
    #expect(error.code == .invalidCertificateChain)
  }

  @Test func embeddedRootIsApplesRootCAG3() throws {
    let file = try SharedFixtures.bytes("certs/AppleRootCA-G3.cer")
    #expect(AppleRootCertificates.rootCAG3 == file)
    let digest = SHA256.hash(data: AppleRootCertificates.rootCAG3).map {
      String(format: "%02x", $0)
    }.joined()
    #expect(digest == "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179")
  }

  @Test func pemRootEqualsDerRoot() async throws {
    let pem = try SharedFixtures.text("certs/AppleRootCA-G3.pem")
    #expect(try TrustedRoots.derCertificates(pemEncoded: pem) == [AppleRootCertificates.rootCAG3])
    let roots = try TrustedRoots(pemEncoded: pem)
    let fromPEM = ChainValidator(roots: roots, cacheCapacity: nil)
    _ = try await fromPEM.validate(
      leafDER: leaf, intermediateDER: intermediate, at: iso("2026-01-01T00:00:00Z"))
  }
}
