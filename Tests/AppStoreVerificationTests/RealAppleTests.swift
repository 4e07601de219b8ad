import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Real Apple-signed JWS verify offline, at their signedDate, under Apple Root CA - G3 only.
@Suite struct RealAppleTests {
  struct ManifestEntry: Decodable, Sendable, CustomTestStringConvertible {
    var file: String
    var kind: String
    var bundleId: String?
    var environment: String?
    var appAppleId: Int64?
    var signedDate: Int64
    var testDescription: String { file }
  }

  static let manifest: [ManifestEntry] = {
    let data = (try? SharedFixtures.data("conformance/real-apple/manifest.json")) ?? Data("[]".utf8)
    let listed = (try? JSONDecoder().decode([ManifestEntry].self, from: data)) ?? []
    // The manifest leaves out the one payload without an environment; its README lists it.
    let withoutEnvironment = ManifestEntry(
      file: "transaction-noenv-2021-12-31.jws", kind: "transaction",
      bundleId: "com.tap4fun.bz.appstore", environment: nil, appAppleId: nil,
      signedDate: 1_640_922_700_641)
    return listed + [withoutEnvironment]
  }()

  /// Files signed by the 2025 leaf, valid until 2027-10-13; the older leaves have expired.
  static let signedByLeaf2025: Set<String> = [
    "notification-DID_CHANGE_RENEWAL_STATUS-AUTO_RENEW_DISABLED-sandbox-2025-10-06.jws",
    "notification-REFUND-sandbox-2025-10-16.jws",
    "transaction-sandbox-2025-10-16.jws",
    "renewal-sandbox-2025-10-06.jws",
  ]

  static func verifier(for entry: ManifestEntry, at time: ValidationTime = .signedDate) throws
    -> SignedDataVerifier
  {
    let environment = entry.environment.map(AppStoreEnvironment.init(rawValue:))
    return try SignedDataVerifier(
      configuration: VerifierConfiguration(
        bundleId: entry.bundleId,
        appAppleId: environment == .production ? entry.appAppleId : nil,
        environment: environment, validationTime: time))
  }

  /// Verifies `jws` as the manifest's kind and returns the signed date Apple put in it.
  @discardableResult
  static func verify(_ jws: String, as entry: ManifestEntry, with verifier: SignedDataVerifier)
    async throws -> Int64?
  {
    switch entry.kind {
    case "notification":
      return try await verifier.verifyNotification(jws).payload.signedDate?.milliseconds
    case "transaction":
      return try await verifier.verifyTransaction(jws).payload.signedDate?.milliseconds
    default: return try await verifier.verifyRenewalInfo(jws).payload.signedDate?.milliseconds
    }
  }

  @Test func manifestCoversEveryFile() throws {
    #expect(Self.manifest.count == 21)
    #expect(Set(Self.manifest.map(\.file)) == Set(try SharedFixtures.realAppleFiles()))
  }

  @Test(arguments: manifest)
  func verifiesAtItsSignedDate(entry: ManifestEntry) async throws {
    let jws = try SharedFixtures.realApple(entry.file)
    let signedDate = try await Self.verify(jws, as: entry, with: Self.verifier(for: entry))
    #expect(signedDate == entry.signedDate)
    #expect(
      try SignedDataKind.of(jws).rawValue
        == entry.kind.replacingOccurrences(of: "renewal", with: "renewalInfo"))
  }

  @Test(arguments: manifest)
  func expiredLeavesFailAtALaterTime(entry: ManifestEntry) async throws {
    let mid2026 = Date(timeIntervalSince1970: 1_780_000_000)
    let verifier = try Self.verifier(for: entry, at: .fixed(mid2026))
    let jws = try SharedFixtures.realApple(entry.file)
    if Self.signedByLeaf2025.contains(entry.file) {
      try await Self.verify(jws, as: entry, with: verifier)
    } else {
      let error = try await #require(throws: VerificationError.self) {
        try await Self.verify(jws, as: entry, with: verifier)
      }
      #expect(error.code == .certificateNotValidAtTime)
    }
  }

  @Test(arguments: manifest)
  func oneCharacterChangeInAnySegmentFails(entry: ManifestEntry) async throws {
    let jws = Array(try SharedFixtures.realApple(entry.file).utf8)
    let verifier = try Self.verifier(for: entry)
    let dots = jws.indices.filter { jws[$0] == UInt8(ascii: ".") }
    let segments = [0..<dots[0], (dots[0] + 1)..<dots[1], (dots[1] + 1)..<jws.count]
    for segment in segments {
      for position in [
        segment.lowerBound, segment.lowerBound + segment.count / 2, segment.upperBound - 1,
      ] {
        var mutated = jws
        mutated[position] =
          mutated[position] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        await #expect(throws: VerificationError.self, "position \(position)") {
          try await Self.verify(String(decoding: mutated, as: UTF8.self), as: entry, with: verifier)
        }
      }
    }
  }

  /// Each nested JWS verifies at its own signedDate (above) and at its notification's.
  @Test(arguments: manifest.filter { $0.kind == "notification" })
  func nestedJWSVerifiesAtTheNotificationsSignedDate(entry: ManifestEntry) async throws {
    let jws = try SharedFixtures.realApple(entry.file)
    let notification = try await Self.verifier(for: entry).verifyNotification(jws)
    let atNotification = try Self.verifier(
      for: entry, at: .fixed(Date(timeIntervalSince1970: Double(entry.signedDate) / 1000)))
    if let transaction = notification.transaction {
      #expect(
        try await atNotification.verifyTransaction(transaction.compactJWS).payload
          == transaction.payload)
    }
    if let renewal = notification.renewalInfo {
      #expect(
        try await atNotification.verifyRenewalInfo(renewal.compactJWS).payload == renewal.payload)
    }
  }

  @Test func anotherBundleOrEnvironmentIsRejected() async throws {
    let jws = try SharedFixtures.realApple("notification-DID_RENEW-sandbox-2025-07-28.jws")
    let otherBundle = try SignedDataVerifier(
      configuration: VerifierConfiguration(bundleId: "com.example.other", environment: .sandbox))
    await #expect(
      throws: VerificationError(
        .bundleIdMismatch, "the payload's bundle id is not the configured one")
    ) {
      try await otherBundle.verifyNotification(jws)
    }
    let production = try SignedDataVerifier(
      configuration: VerifierConfiguration(
        bundleId: "GeniusParentingAI", appAppleId: 6_747_332_178, environment: .production))
    let error = try await #require(throws: VerificationError.self) {
      try await production.verifyNotification(jws)
    }
    #expect(error.code == .environmentMismatch)
  }

  @Test func productionNotificationChecksTheAppAppleId() async throws {
    let jws = try SharedFixtures.realApple("notification-TEST-production-2024-10-17.jws")
    let verifier = try SignedDataVerifier(
      configuration: VerifierConfiguration(
        bundleId: "com.nineton.taller", appAppleId: 1, environment: .production))
    let error = try await #require(throws: VerificationError.self) {
      try await verifier.verifyNotification(jws)
    }
    #expect(error.code == .appAppleIdMismatch)
  }

  @Test func standaloneCopiesDecodeLikeTheirNestedOriginals() async throws {
    let verifier = try SignedDataVerifier(configuration: VerifierConfiguration())
    let refund = try await verifier.verifyNotification(
      SharedFixtures.realApple("notification-REFUND-sandbox-2025-10-16.jws"))
    let transaction = try await verifier.verifyTransaction(
      SharedFixtures.realApple("transaction-sandbox-2025-10-16.jws"))
    #expect(refund.transaction?.compactJWS == transaction.compactJWS)
    #expect(refund.transaction?.payload == transaction.payload)
    let disabled = try await verifier.verifyNotification(
      SharedFixtures.realApple(
        "notification-DID_CHANGE_RENEWAL_STATUS-AUTO_RENEW_DISABLED-sandbox-2025-10-06.jws"))
    let renewal = try await verifier.verifyRenewalInfo(
      SharedFixtures.realApple("renewal-sandbox-2025-10-06.jws"))
    #expect(disabled.renewalInfo?.payload == renewal.payload)
  }
}
