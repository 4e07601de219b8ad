import Foundation
import StoreLedgerCore
import Testing

@testable import AppStoreVerification

/// The cache of validated chains: keyed by exact bytes, only within validity, bounded, shared.
@Suite struct ChainCacheTests {
  @Test func secondVerificationOfAChainIsACacheHit() async throws {
    let pki = try TestPKI()
    let verifier = try SignedSamples.verifier(pki)
    #expect(verifier.chains.cache?.count == 0)
    _ = try await verifier.verifyTransaction(pki.sign(SignedSamples.transaction()))
    #expect(verifier.chains.cache?.count == 1)
    _ = try await verifier.verifyRenewalInfo(pki.sign(SignedSamples.renewalInfo()))
    #expect(verifier.chains.cache?.count == 1)
    let key = ChainCache.Key(leaf: pki.leafDER, intermediate: pki.intermediateDER)
    #expect(verifier.chains.cache?.chain(for: key, at: SignedSamples.signedDate.date) != nil)
  }

  @Test func headersAreRememberedOnlyAfterTheirJWSVerified() async throws {
    let pki = try TestPKI()
    let verifier = try SignedSamples.verifier(pki)
    let jws = try pki.sign(SignedSamples.transaction())
    var signature = SignedSamples.segment(2, of: jws)
    signature[5] ^= 0x01
    let forged = SignedSamples.replacingSegment(2, of: jws, with: signature)
    await #expect(throws: VerificationError.self) { try await verifier.verifyTransaction(forged) }
    #expect(verifier.headers?.count == 0)
    _ = try await verifier.verifyTransaction(jws)
    #expect(verifier.headers?.count == 1)
    await #expect(throws: VerificationError.self) { try await verifier.verifyTransaction(forged) }
    _ = try await verifier.verifyTransaction(jws)
    #expect(verifier.headers?.count == 1)
  }

  @Test func cachedChainDoesNotVouchOutsideItsValidity() async throws {
    let leafValidity =
      Date(timeIntervalSince1970: 1_735_689_600)...Date(timeIntervalSince1970: 1_767_225_600)
    let pki = try TestPKI(options: TestPKIOptions(leafValidity: leafValidity))
    let verifier = try SignedSamples.verifier(pki)
    _ = try await verifier.verifyTransaction(pki.sign(SignedSamples.transaction()))
    #expect(verifier.chains.cache?.count == 1)
    // Signed in 2026, after the leaf (valid through 2025) expired.
    let late = SignedSamples.transaction(signedDate: Timestamp(milliseconds: 1_780_000_000_000))
    let error = try await #require(throws: VerificationError.self) {
      try await verifier.verifyTransaction(pki.sign(late))
    }
    #expect(error.code == .certificateNotValidAtTime)
  }

  @Test func keyIsTheExactBytesOfLeafAndIntermediate() async throws {
    let cache = ChainCache(capacity: 8)
    let pki = try TestPKI()
    let chain = try await ChainValidator(roots: pki.trustedRoots, cacheCapacity: nil)
      .validate(
        leafDER: pki.leafDER, intermediateDER: pki.intermediateDER,
        at: SignedSamples.signedDate.date)
    cache.insert(chain, for: ChainCache.Key(leaf: pki.leafDER, intermediate: pki.intermediateDER))
    var alteredLeaf = pki.leafDER
    alteredLeaf[alteredLeaf.count / 2] ^= 0x01
    let now = SignedSamples.signedDate.date
    #expect(
      cache.chain(
        for: ChainCache.Key(leaf: alteredLeaf, intermediate: pki.intermediateDER), at: now) == nil)
    #expect(
      cache.chain(for: ChainCache.Key(leaf: pki.leafDER, intermediate: pki.rootDER), at: now) == nil
    )
    #expect(
      cache.chain(
        for: ChainCache.Key(leaf: pki.leafDER, intermediate: pki.intermediateDER), at: now) != nil)
  }

  @Test func cacheIsBounded() async throws {
    let verifier = try SignedDataVerifier(
      configuration: VerifierConfiguration(trustedRoots: TrustedRoots.apple, chainCacheCapacity: 2))
    var pkis: [TestPKI] = []
    for _ in 0..<5 { pkis.append(try TestPKI()) }
    let roots = try TrustedRoots(derEncoded: pkis.map(\.rootDER))
    let bounded = try SignedDataVerifier(
      configuration: VerifierConfiguration(trustedRoots: roots, chainCacheCapacity: 2))
    for pki in pkis {
      _ = try await bounded.verifyTransaction(pki.sign(SignedSamples.transaction()))
      #expect((bounded.chains.cache?.count ?? 0) <= 2)
    }
    #expect(bounded.chains.cache?.count == 2)
    #expect(verifier.chains.cache?.capacity == 2)
  }

  @Test func disabledCacheValidatesEveryTime() async throws {
    let pki = try TestPKI()
    let verifier = try SignedSamples.verifier(pki, cacheCapacity: nil)
    #expect(verifier.chains.cache == nil)
    _ = try await verifier.verifyTransaction(pki.sign(SignedSamples.transaction()))
  }

  @Test func concurrentVerificationsShareOneCache() async throws {
    let pkis = [try TestPKI(), try TestPKI(), try TestPKI()]
    let roots = try TrustedRoots(derEncoded: pkis.map(\.rootDER))
    let verifier = try SignedDataVerifier(
      configuration: VerifierConfiguration(trustedRoots: roots, bundleId: SignedSamples.bundleId))
    let tokens = try pkis.map { try $0.sign(SignedSamples.transaction()) }
    let verified = try await withThrowingTaskGroup(of: Int.self) { group in
      for worker in 0..<8 {
        group.addTask {
          var count = 0
          for round in 0..<150 {
            let jws = tokens[(worker + round) % tokens.count]
            if try await verifier.verifyTransaction(jws).payload.transactionId == "2000000000000002"
            {
              count += 1
            }
          }
          return count
        }
      }
      return try await group.reduce(0, +)
    }
    #expect(verified == 8 * 150)
    #expect(verifier.chains.cache?.count == 3)
  }
}
