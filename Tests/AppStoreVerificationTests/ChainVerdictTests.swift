import Foundation
import StoreLedgerTestSupport
import Testing

@testable import AppStoreVerification

/// The chain walk's verdicts (swift-certificates' `Verifier` under its RFC 5280 policy and
/// ``AppleChainPolicy``) on Apple's real chain at instants inside and outside its validity,
/// and on test chains each broken in one way; each refusal names its reason.
@Suite struct ChainVerdictTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let name: String
    let leaf: [UInt8]
    let intermediate: [UInt8]
    let roots: [[UInt8]]
    let time: Date
    /// nil: the chain validates.
    let refusal: VerificationError.Code?
    var testDescription: String { name }
  }

  static let now = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21
  static let past: ClosedRange<Date> =
    Date(timeIntervalSince1970: 1_577_836_800)...Date(timeIntervalSince1970: 1_609_459_200)

  static func pkiCase(
    _ name: String, _ options: TestPKIOptions = TestPKIOptions(),
    refusal: VerificationError.Code?, at time: Date = now, swapped: Bool = false,
    foreignRoot: Bool = false
  ) throws -> Case {
    let pki = try TestPKI(options: options)
    let roots = foreignRoot ? [try TestPKI(options: .init(name: "Other")).rootDER] : [pki.rootDER]
    return Case(
      name: name, leaf: swapped ? pki.intermediateDER : pki.leafDER,
      intermediate: swapped ? pki.leafDER : pki.intermediateDER, roots: roots, time: time,
      refusal: refusal)
  }

  /// Apple's 2025 leaf is valid from 2025-09-19T19:44:51Z to 2027-10-13T17:47:23Z.
  static func realCases() throws -> [Case] {
    let leaf = try SharedFixtures.bytes(
      "certs/real-apple-chain/apple-receipt-signing-leaf-2025.cer")
    let intermediate = try SharedFixtures.bytes(
      "certs/real-apple-chain/apple-wwdr-g6-intermediate.cer")
    let root = try SharedFixtures.bytes("certs/AppleRootCA-G3.cer")
    let times: [(TimeInterval, VerificationError.Code?)] = [
      (1_758_311_091, nil), (1_790_000_000, nil), (1_823_449_643, nil),
      (1_758_311_090, .certificateNotValidAtTime), (1_823_449_644, .certificateNotValidAtTime),
    ]
    return times.map { seconds, refusal in
      Case(
        name: "Apple's chain at \(Int(seconds))", leaf: leaf, intermediate: intermediate,
        roots: [root], time: Date(timeIntervalSince1970: seconds), refusal: refusal)
    } + [
      Case(
        name: "Apple's root as the intermediate", leaf: leaf, intermediate: root, roots: [root],
        time: now, refusal: .invalidCertificateChain)
    ]
  }

  static func cases() throws -> [Case] {
    try [
      pkiCase("a test chain shaped like Apple's", refusal: nil),
      pkiCase(
        "an expired leaf", TestPKIOptions(leafValidity: past), refusal: .certificateNotValidAtTime),
      pkiCase(
        "expired authorities", TestPKIOptions(authorityValidity: past),
        refusal: .certificateNotValidAtTime),
      pkiCase(
        "before the validity", refusal: .certificateNotValidAtTime,
        at: Date(timeIntervalSince1970: 1_500_000_000)),
      pkiCase(
        "an intermediate without the WWDR marker",
        TestPKIOptions(intermediateHasAppleMarker: false), refusal: .missingAppleOID),
      pkiCase(
        "a leaf without the receipt-signing marker", TestPKIOptions(leafHasAppleMarker: false),
        refusal: .missingAppleOID),
      pkiCase(
        "an intermediate that is not a CA",
        TestPKIOptions(intermediateIsCertificateAuthority: false),
        refusal: .invalidCertificateChain),
      pkiCase("another root", refusal: .untrustedRoot, foreignRoot: true),
      pkiCase("leaf and intermediate swapped", refusal: .invalidCertificateChain, swapped: true),
    ] + realCases()
  }

  @Test(arguments: try cases())
  func eachChainGetsItsVerdict(_ chain: Case) async throws {
    let validator = ChainValidator(
      roots: try TrustedRoots(derEncoded: chain.roots), cacheCapacity: nil)
    do {
      _ = try await validator.validate(
        leafDER: chain.leaf, intermediateDER: chain.intermediate, at: chain.time)
      #expect(chain.refusal == nil)
    } catch {
      #expect(error.code == chain.refusal)
    }
  }

  @Test func blockingOnTheWalkFromEveryPoolThreadAtOnceCompletes() async throws {
    let pki = try TestPKI()
    let validator = ChainValidator(roots: pki.trustedRoots, cacheCapacity: nil)
    let validated = try await withThrowingTaskGroup(of: Bool.self) { group in
      for _ in 0..<16 {
        group.addTask {
          _ = try await validator.validate(
            leafDER: pki.leafDER, intermediateDER: pki.intermediateDER, at: Self.now)
          return true
        }
      }
      return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
    }
    #expect(validated == 16)
  }
}
