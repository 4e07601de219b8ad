import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

@testable import AppStoreVerification

/// Random mutations of valid JWS never verify and never crash: every outcome is a
/// `VerificationError`.
@Suite struct MutationPropertyTests {
  struct Sample: Sendable, CustomTestStringConvertible {
    let name: String
    let jws: String
    let verify: @Sendable (String) async throws -> Void
    var testDescription: String { name }
  }

  static let samples: [Sample] = {
    guard let pki = try? TestPKI(), let verifier = try? SignedSamples.verifier(pki),
      let apple = try? SignedDataVerifier(configuration: VerifierConfiguration()),
      let transaction = try? pki.sign(SignedSamples.transaction()),
      let notification = try? SignedSamples.signedNotification(pki),
      let real = try? SharedFixtures.realApple("notification-REFUND-sandbox-2025-10-16.jws")
    else { return [] }
    return [
      Sample(name: "test PKI transaction", jws: transaction) {
        _ = try await verifier.verifyTransaction($0)
      },
      Sample(name: "test PKI notification", jws: notification) {
        _ = try await verifier.verifyNotification($0)
      },
      Sample(name: "real Apple notification", jws: real) {
        _ = try await apple.verifyNotification($0)
      },
    ]
  }()

  static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ \n".utf8)

  static func mutate(_ token: [UInt8], using random: inout SeededRandom) -> [UInt8] {
    var bytes = token
    for _ in 0..<Int.random(in: 1...3, using: &random) {
      guard !bytes.isEmpty else { break }
      let index = Int.random(in: 0..<bytes.count, using: &random)
      switch Int.random(in: 0..<7, using: &random) {
      case 0: bytes[index] = alphabet.randomElement(using: &random)!
      case 1: bytes[index] = UInt8.random(in: 0...255, using: &random)
      case 2: bytes.remove(at: index)
      case 3: bytes.insert(alphabet.randomElement(using: &random)!, at: index)
      case 4: bytes = Array(bytes.prefix(index))
      case 5: bytes = flippingDecodedBit(in: bytes, using: &random)
      default: bytes = swappingSegments(bytes, using: &random)
      }
    }
    return bytes
  }

  /// Flips one bit of a segment's decoded bytes and re-encodes it canonically.
  static func flippingDecodedBit(in bytes: [UInt8], using random: inout SeededRandom) -> [UInt8] {
    var segments = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    guard segments.count == 3 else { return bytes }
    let which = Int.random(in: 0..<3, using: &random)
    guard var decoded = Base64Bytes.decode(segments[which], alphabet: .urlUnpadded),
      !decoded.isEmpty
    else { return bytes }
    decoded[Int.random(in: 0..<decoded.count, using: &random)] ^=
      1 << UInt8.random(in: 0..<8, using: &random)
    segments[which] = ArraySlice(Base64Bytes.encode(decoded, alphabet: .urlUnpadded).utf8)
    return Array(segments.joined(separator: [UInt8(ascii: ".")]))
  }

  static func swappingSegments(_ bytes: [UInt8], using random: inout SeededRandom) -> [UInt8] {
    var segments = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    guard segments.count == 3 else { return bytes }
    segments.swapAt(Int.random(in: 0..<3, using: &random), Int.random(in: 0..<3, using: &random))
    return Array(segments.joined(separator: [UInt8(ascii: ".")]))
  }

  @Test func samplesVerifyUnmutated() async throws {
    #expect(Self.samples.count == 3)
    for sample in Self.samples { try await sample.verify(sample.jws) }
  }

  @Test(arguments: samples)
  func mutationsNeverVerify(sample: Sample) async {
    var random = SeededRandom(seed: 0x5EED_0000 &+ UInt64(sample.name.utf8.count))
    let original = Array(sample.jws.utf8)
    var tried = 0
    for _ in 0..<1500 {
      let mutated = Self.mutate(original, using: &random)
      guard mutated != original else { continue }
      tried += 1
      let text = String(decoding: mutated, as: UTF8.self)
      do {
        try await sample.verify(text)
        Issue.record("a mutation verified: \(text.prefix(40))…")
      } catch is VerificationError {
      } catch {
        Issue.record("a mutation threw \(type(of: error)), not a VerificationError")
      }
    }
    #expect(tried > 1400)
  }

  @Test func splicedSegmentsFromAnotherTokenNeverVerify() async throws {
    let pki = try TestPKI()
    let verifier = try SignedSamples.verifier(pki)
    let first = try pki.sign(SignedSamples.transaction()).split(separator: ".")
    var other = SignedSamples.transaction()
    other.productId = "com.example.other"
    let second = try pki.sign(other).split(separator: ".")
    let spliced = [first[0], second[1], first[2]].joined(separator: ".")
    await #expect(
      throws: VerificationError(.invalidSignature, "the ES256 signature does not verify")
    ) {
      try await verifier.verifyTransaction(spliced)
    }
  }

  @Test func randomBytesNeverVerify() async {
    var random = SeededRandom(seed: 42)
    let verifier = try? SignedDataVerifier(configuration: VerifierConfiguration())
    for length in stride(from: 0, to: 3000, by: 7) {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
      await #expect(throws: VerificationError.self) {
        try await verifier?.verifyNotification(String(decoding: bytes, as: UTF8.self))
      }
    }
  }
}
