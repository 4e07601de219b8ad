import Foundation
import StoreLedgerCore
import Testing

@testable import AppStoreVerification

/// One or more negative tests per error code, all with data signed by a test PKI.
@Suite struct VerificationErrorTests {
  let pki: TestPKI
  let verifier: SignedDataVerifier

  init() throws {
    pki = try TestPKI()
    verifier = try SignedSamples.verifier(pki)
  }

  func code(_ body: () async throws -> Void) async -> VerificationError.Code? {
    do {
      try await body()
      return nil
    } catch let error as VerificationError {
      return error.code
    } catch {
      return VerificationError.Code(rawValue: "unexpected \(type(of: error))")
    }
  }

  func transactionCode(_ jws: String) async -> VerificationError.Code? {
    await code { _ = try await verifier.verifyTransaction(jws) }
  }

  @Test func theUntamperedSamplesVerify() async throws {
    let transaction = try await verifier.verifyTransaction(pki.sign(SignedSamples.transaction()))
    #expect(transaction.payload == SignedSamples.transaction())
    #expect(
      try await verifier.verifyRenewalInfo(pki.sign(SignedSamples.renewalInfo())).payload
        == SignedSamples.renewalInfo())
    #expect(
      try await verifier.verifyAppTransaction(pki.sign(SignedSamples.appTransaction())).payload
        == SignedSamples.appTransaction())
    let notification = try await verifier.verifyNotification(SignedSamples.signedNotification(pki))
    #expect(notification.transaction?.payload == SignedSamples.transaction())
    #expect(notification.renewalInfo?.payload == SignedSamples.renewalInfo())
  }

  @Test(arguments: [
    "", "abc", "a.b", "a.b.c.d", "..", "a..c", ".b.c", "a.b.", "a b.c.d", "é.b.c", "a.b.c=",
    "YQ.YQ.YQ==", "Y.Y.Y",
  ])
  func malformedCompactForm(jws: String) async {
    #expect(await transactionCode(jws) == .malformedJWS)
  }

  @Test func nonCanonicalBase64IsMalformed() async throws {
    let jws = try pki.sign(SignedSamples.transaction())
    // The last character of a 64-byte signature carries 4 data bits and 2 unused bits.
    var characters = Array(jws)
    let last = characters.count - 1
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    let index = alphabet.firstIndex(of: characters[last])!
    characters[last] = alphabet[index ^ 0x01]
    #expect(await transactionCode(String(characters)) == .malformedJWS)
  }

  @Test func headerThatIsNotAJSONObjectIsMalformed() async throws {
    let jws = try pki.sign(SignedSamples.transaction())
    for header in ["not json", "[1,2]", "{\"alg\":5}", ""] where !header.isEmpty {
      let tampered = SignedSamples.replacingSegment(0, of: jws, with: Array(header.utf8))
      #expect(await transactionCode(tampered) == .malformedJWS, "\(header)")
    }
  }

  @Test func missingX5CIsMalformed() async throws {
    let jws = try pki.sign(SignedSamples.transaction())
    let header = Array(#"{"alg":"ES256"}"#.utf8)
    #expect(
      await transactionCode(SignedSamples.replacingSegment(0, of: jws, with: header))
        == .malformedJWS)
  }

  @Test(arguments: ["ES384", "none", "HS256", "es256", "RS256"])
  func algorithmOtherThanES256IsUnsupported(alg: String) async throws {
    #expect(
      await transactionCode(try pki.sign(SignedSamples.transaction(), alg: alg))
        == .unsupportedAlgorithm)
  }

  @Test func payloadThatIsNotJSONIsMalformed() async {
    #expect(
      await transactionCode(pki.sign(payloadJSON: Array("not json".utf8))) == .malformedPayload)
    #expect(await transactionCode(pki.sign(payloadJSON: Array("[]".utf8))) == .malformedPayload)
  }

  @Test func payloadWithAWrongFieldTypeIsMalformed() async {
    let json = #"{"data":{"appAppleId":"blue","bundleId":"com.example.app"},"signedDate":1}"#
    let jws = pki.sign(payloadJSON: Array(json.utf8))
    #expect(await code { _ = try await verifier.verifyNotification(jws) } == .malformedPayload)
  }

  @Test func chainsOfOtherLengthsAreInvalid() async throws {
    let payload = SignedSamples.transaction()
    let two = try pki.sign(payload, x5c: [pki.leafDER, pki.intermediateDER])
    let four = try pki.sign(payload, x5c: pki.chain + [pki.rootDER])
    let one = try pki.sign(payload, x5c: [pki.leafDER])
    let none = try pki.sign(payload, x5c: [])
    for jws in [two, four, one, none] {
      #expect(await transactionCode(jws) == .invalidCertificateChain)
    }
  }

  @Test func certificatesThatDoNotParseAreInvalid() async throws {
    let payload = SignedSamples.transaction()
    let garbage = try pki.sign(
      payload, x5c: [Array("not a certificate".utf8), pki.intermediateDER, pki.rootDER])
    #expect(await transactionCode(garbage) == .invalidCertificateChain)
    let header = Array(#"{"alg":"ES256","x5c":["!!!","AAAA","AAAA"]}"#.utf8)
    let badBase64 = SignedSamples.replacingSegment(0, of: try pki.sign(payload), with: header)
    #expect(await transactionCode(badBase64) == .invalidCertificateChain)
  }

  @Test func leafFromAnotherIntermediateDoesNotLink() async throws {
    let other = try TestPKI()
    let jws = try pki.sign(
      SignedSamples.transaction(), x5c: [other.leafDER, pki.intermediateDER, pki.rootDER])
    #expect(await transactionCode(jws) == .invalidCertificateChain)
  }

  @Test func foreignRootIsUntrusted() async throws {
    let foreign = try TestPKI(options: TestPKIOptions(name: "Foreign"))
    #expect(await transactionCode(try foreign.sign(SignedSamples.transaction())) == .untrustedRoot)
    // A chain that merely carries the trusted root as x5c[2] is still foreign.
    let disguised = try foreign.sign(
      SignedSamples.transaction(), x5c: [foreign.leafDER, foreign.intermediateDER, pki.rootDER])
    #expect(await transactionCode(disguised) == .untrustedRoot)
  }

  @Test func sameNamedRootWithAnotherKeyIsUntrusted() async throws {
    let impostor = try TestPKI()  // same names, other keys
    #expect(await transactionCode(try impostor.sign(SignedSamples.transaction())) == .untrustedRoot)
  }

  struct BrokenPKI: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let options: TestPKIOptions
    let expected: VerificationError.Code
  }

  static func validity(_ from: TimeInterval, _ until: TimeInterval) -> ClosedRange<Date> {
    Date(timeIntervalSince1970: from)...Date(timeIntervalSince1970: until)
  }

  /// PKIs broken in one property each, verified against their own root at the sample's
  /// signing date (2025-06-01).
  static let brokenPKIs = [
    BrokenPKI(
      testDescription: "intermediate without Apple's marker",
      options: TestPKIOptions(intermediateHasAppleMarker: false), expected: .missingAppleOID),
    BrokenPKI(
      testDescription: "leaf without Apple's marker",
      options: TestPKIOptions(leafHasAppleMarker: false), expected: .missingAppleOID),
    BrokenPKI(
      testDescription: "intermediate that is not a CA",
      options: TestPKIOptions(intermediateIsCertificateAuthority: false),
      expected: .invalidCertificateChain),
    BrokenPKI(
      testDescription: "leaf expired before the signing date",
      options: TestPKIOptions(leafValidity: validity(1_600_000_000, 1_700_000_000)),
      expected: .certificateNotValidAtTime),
    BrokenPKI(
      testDescription: "leaf not yet valid at the signing date",
      options: TestPKIOptions(leafValidity: validity(1_800_000_000, 1_900_000_000)),
      expected: .certificateNotValidAtTime),
    BrokenPKI(
      testDescription: "root and intermediate expired before the signing date",
      options: TestPKIOptions(authorityValidity: validity(1_500_000_000, 1_700_000_000)),
      expected: .certificateNotValidAtTime),
  ]

  @Test(arguments: brokenPKIs)
  func chainBrokenInOnePropertyIsRejected(broken: BrokenPKI) async throws {
    let pki = try TestPKI(options: broken.options)
    let verifier = try SignedSamples.verifier(pki)
    let jws = try pki.sign(SignedSamples.transaction())
    #expect(await code { _ = try await verifier.verifyTransaction(jws) } == broken.expected)
  }

  @Test func tamperedHeaderFailsTheSignature() async throws {
    let jws = try pki.sign(SignedSamples.transaction())
    let header = SignedSamples.segment(0, of: jws)
    let spaced = Array(
      String(decoding: header, as: UTF8.self).replacingOccurrences(of: ":", with: ": ").utf8)
    #expect(
      await transactionCode(SignedSamples.replacingSegment(0, of: jws, with: spaced))
        == .invalidSignature
    )
  }

  @Test func tamperedPayloadFailsTheSignature() async throws {
    let jws = try pki.sign(SignedSamples.transaction())
    let payload = String(decoding: SignedSamples.segment(1, of: jws), as: UTF8.self)
      .replacingOccurrences(of: "2000000000000002", with: "2000000000000003")
    #expect(
      await transactionCode(SignedSamples.replacingSegment(1, of: jws, with: Array(payload.utf8)))
        == .invalidSignature)
  }

  @Test func tamperedSignatureFails() async throws {
    let jws = try pki.sign(SignedSamples.transaction())
    var signature = SignedSamples.segment(2, of: jws)
    signature[10] ^= 0x01
    #expect(
      await transactionCode(SignedSamples.replacingSegment(2, of: jws, with: signature))
        == .invalidSignature)
    #expect(
      await transactionCode(
        SignedSamples.replacingSegment(2, of: jws, with: Array(signature.prefix(63))))
        == .invalidSignature)
    #expect(
      await transactionCode(
        SignedSamples.replacingSegment(2, of: jws, with: [UInt8](repeating: 0, count: 64)))
        == .invalidSignature)
  }

  @Test func signatureByAnotherKeyFails() async throws {
    let other = try TestPKI()
    let jws = try other.sign(SignedSamples.transaction(), x5c: pki.chain)
    #expect(await transactionCode(jws) == .invalidSignature)
  }

  @Test func bundleMismatch() async throws {
    #expect(
      await transactionCode(try pki.sign(SignedSamples.transaction(bundleId: "com.example.other")))
        == .bundleIdMismatch)
  }

  @Test func environmentMismatch() async throws {
    #expect(
      await transactionCode(try pki.sign(SignedSamples.transaction(environment: .production)))
        == .environmentMismatch)
  }

  @Test func appAppleIdMismatchInProduction() async throws {
    let production = try SignedSamples.verifier(pki, environment: .production)
    var body = SignedSamples.notification(environment: .production, appAppleId: 42)
    #expect(
      await code { _ = try await production.verifyNotification(pki.sign(body)) }
        == .appAppleIdMismatch)
    body.data?.appAppleId = SignedSamples.appAppleId
    #expect(await code { _ = try await production.verifyNotification(pki.sign(body)) } == nil)
    var app = SignedSamples.appTransaction(environment: .production, appAppleId: 42)
    #expect(
      await code { _ = try await production.verifyAppTransaction(pki.sign(app)) }
        == .appAppleIdMismatch)
    app.appAppleId = SignedSamples.appAppleId
    #expect(await code { _ = try await production.verifyAppTransaction(pki.sign(app)) } == nil)
  }

  @Test func appAppleIdIsNotCheckedInSandbox() async throws {
    let body = SignedSamples.notification(environment: .sandbox, appAppleId: 42)
    #expect(await code { _ = try await verifier.verifyNotification(pki.sign(body)) } == nil)
  }

  @Test func nestedTransactionFromAnotherBundleIsRejected() async throws {
    let body = SignedSamples.notification(
      signedTransactionInfo: try pki.sign(SignedSamples.transaction(bundleId: "com.example.other")))
    let unconfigured = try SignedDataVerifier(
      configuration: VerifierConfiguration(trustedRoots: pki.trustedRoots))
    #expect(
      await code { _ = try await verifier.verifyNotification(pki.sign(body)) } == .bundleIdMismatch)
    #expect(
      await code { _ = try await unconfigured.verifyNotification(pki.sign(body)) }
        == .bundleIdMismatch)
  }

  @Test func nestedDataFromAnotherEnvironmentIsRejected() async throws {
    let unconfigured = try SignedDataVerifier(
      configuration: VerifierConfiguration(trustedRoots: pki.trustedRoots))
    let transaction = SignedSamples.notification(
      signedTransactionInfo: try pki.sign(SignedSamples.transaction(environment: .production)))
    #expect(
      await code { _ = try await unconfigured.verifyNotification(pki.sign(transaction)) }
        == .environmentMismatch)
    let renewal = SignedSamples.notification(
      signedRenewalInfo: try pki.sign(SignedSamples.renewalInfo(environment: .production)))
    #expect(
      await code { _ = try await unconfigured.verifyNotification(pki.sign(renewal)) }
        == .environmentMismatch)
  }

  @Test func nestedJWSIsVerifiedOnItsOwn() async throws {
    let foreign = try TestPKI(options: TestPKIOptions(name: "Foreign"))
    let foreignNested = SignedSamples.notification(
      signedTransactionInfo: try foreign.sign(SignedSamples.transaction()))
    #expect(
      await code { _ = try await verifier.verifyNotification(pki.sign(foreignNested)) }
        == .untrustedRoot)
    let tampered = try pki.sign(SignedSamples.transaction())
    var signature = SignedSamples.segment(2, of: tampered)
    signature[0] ^= 0x80
    let tamperedNested = SignedSamples.notification(
      signedTransactionInfo: SignedSamples.replacingSegment(2, of: tampered, with: signature))
    #expect(
      await code { _ = try await verifier.verifyNotification(pki.sign(tamperedNested)) }
        == .invalidSignature)
    let malformed = SignedSamples.notification(signedRenewalInfo: "not-a-jws")
    #expect(
      await code { _ = try await verifier.verifyNotification(pki.sign(malformed)) } == .malformedJWS
    )
  }

  @Test func nestedAppTransactionOfRescindConsentIsVerified() async throws {
    var body = ResponseBodyV2DecodedPayload()
    body.notificationType = .rescindConsent
    body.signedDate = SignedSamples.signedDate
    var appData = AppData()
    appData.bundleId = SignedSamples.bundleId
    appData.environment = .sandbox
    appData.signedAppTransactionInfo = try pki.sign(SignedSamples.appTransaction())
    body.appData = appData
    let verified = try await verifier.verifyNotification(pki.sign(body))
    #expect(verified.appTransaction?.payload == SignedSamples.appTransaction())
    body.appData?.signedAppTransactionInfo = try pki.sign(
      SignedSamples.appTransaction(environment: .production))
    #expect(
      await code { _ = try await verifier.verifyNotification(pki.sign(body)) }
        == .environmentMismatch)
  }

  @Test(arguments: [AppStoreEnvironment.xcode, .localTesting])
  func unsignedEnvironmentsAreRejectedEvenWhenSigned(environment: AppStoreEnvironment) async throws
  {
    let unconfigured = try SignedDataVerifier(
      configuration: VerifierConfiguration(trustedRoots: pki.trustedRoots))
    let jws = try pki.sign(SignedSamples.transaction(environment: environment))
    #expect(
      await code { _ = try await unconfigured.verifyTransaction(jws) }
        == .unverifiedEnvironmentNotAllowed)
  }

  @Test func inconsistentConfigurationsAreRejected() async throws {
    let productionWithoutAppId = await code {
      _ = try SignedDataVerifier(configuration: VerifierConfiguration(environment: .production))
    }
    #expect(productionWithoutAppId == .invalidConfiguration)
    #expect(
      await code {
        _ = try SignedDataVerifier(configuration: VerifierConfiguration(environment: .xcode))
      }
        == .invalidConfiguration)
    #expect(await code { _ = try TrustedRoots(derEncoded: []) } == .invalidConfiguration)
    #expect(await code { _ = try TrustedRoots(derEncoded: [[1, 2, 3]]) } == .invalidConfiguration)
    #expect(
      await code { _ = try TrustedRoots(pemEncoded: "-----BEGIN CERTIFICATE-----\nAAA\n") }
        == .invalidConfiguration)
  }

  @Test func errorDescriptionsNeverContainPayloadData() async throws {
    let secretBundle = "com.secret.bundle"
    var transaction = SignedSamples.transaction(bundleId: secretBundle)
    transaction.transactionId = "9876543210123"
    let errors: [VerificationError] = await [
      try #require(throws: VerificationError.self) {
        try await verifier.verifyTransaction(pki.sign(transaction))
      },
      try await #require(throws: VerificationError.self) {
        try await verifier.verifyTransaction(
          pki.sign(SignedSamples.transaction(environment: .production)))
      },
    ]
    for error in errors {
      #expect(!error.description.contains(secretBundle))
      #expect(!error.description.contains("9876543210123"))
      #expect(!error.description.contains("7e3fb20b"))
    }
  }
}
