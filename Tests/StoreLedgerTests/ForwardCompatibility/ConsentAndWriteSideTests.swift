import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Crypto
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// RESCIND_CONSENT joined to the accounts holding its download (and the policy that ends its
/// entitlements), Finish Transaction, and the JWS request signatures, on a real PostgreSQL.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct ConsentAndWriteSideTests {
  typealias F = LedgerFixtures
  typealias H = SimulatedAppStoreHarness
  static let account = F.account(1)
  static let download = "705000000000000001"

  static func purchase() throws -> String {
    var transaction = F.transaction("5100", purchased: 0, expires: 30, token: account)
    transaction.appTransactionId = download
    return try SignedFixtures(pki: H.pki).transaction(transaction)
  }

  static func rescindConsent(uuid: String) throws -> String {
    var app = JWSAppTransactionDecodedPayload()
    app.appTransactionId = download
    app.bundleId = SignedFixtures.bundleId
    app.receiptType = .sandbox
    app.receiptCreationDate = F.t(5)
    var body = ResponseBodyV2DecodedPayload()
    body.notificationType = .rescindConsent
    body.notificationUUID = uuid
    body.version = "2.0"
    body.signedDate = F.t(5)
    var data = AppData()
    data.bundleId = SignedFixtures.bundleId
    data.environment = .sandbox
    data.signedAppTransactionInfo = try H.pki.sign(app)
    body.appData = data
    return try H.pki.sign(body)
  }

  @Test func aWithdrawnConsentJoinsTheAccountAndThePolicyEndsItsEntitlements() async throws {
    try await H.withLedger { ledger, database in
      _ = try await ledger.ingest(signedTransaction: try Self.purchase())
      await ledger.flushIdentities()
      let stored = try await ledger.ingest(notification: try Self.rescindConsent(uuid: "c-1"))
      #expect(stored.streamId == "consent:Sandbox:\(Self.download)")
      let history = try await ledger.events(for: Self.account)
      #expect(history.map(\.streamId).contains(stored.streamId), "joined to the account")
      // Policy off (the default): told, nothing ends.
      let view = try await ledger.view(for: Self.account)
      let snapshot = view.snapshot(at: F.t(10)).part(for: Self.account)
      #expect(snapshot.consentRescinded.map(\.appTransactionId) == [Self.download])
      #expect(snapshot.entitlements.map(\.active) == [true])
      // Policy on: the download's entitlement ends at the notification's signedDate.
      try await database.asWriter { client in
        let strict = try Ledger(
          client: client,
          configuration: LedgerConfiguration(
            bundleId: "com.example.app", environments: [.sandbox],
            trustedRoots: H.pki.trustedRoots,
            options: ProjectionOptions(rescindedConsentEndsEntitlements: true)),
          logger: TestDatabase.logger)
        let ended = try await strict.entitlements(for: Self.account, at: F.t(10).date)
        #expect(ended.map(\.active) == [false] && ended.first?.rule == "E6")
        #expect(ended.first?.expiresDate == F.t(5))
        let before = try await strict.entitlements(for: Self.account, at: F.t(4).date)
        #expect(before.map(\.active) == [true])
        let why = try await strict.explain(
          entitlement: "pro.monthly", for: Self.account, at: F.t(10).date)
        #expect(why.events.contains { $0.notification == "RESCIND_CONSENT" })
      }
      let audit = try await LedgerMaintenance(ledger: ledger).audit()
      #expect(audit.isConsistent, "\(audit.problems)")
    }
  }

  @Test func finishTransactionIsCalledAndRecordedOnce() async throws {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890), signer: H.pki,
      now: F.t(0))
    store.put(F.transaction("5200", purchased: 0, expires: 30), customer: "c")
    try await H.withLedger { ledger, database in
      try await H.withClient(store) { client in
        try await AppleActions(ledger: ledger).finishTransaction("5200", apple: client)
        try await AppleActions(ledger: ledger).finishTransaction("5200", apple: client)
        #expect(store.finishedTransactions() == ["5200"])
        do {
          try await AppleActions(ledger: ledger).finishTransaction("9999", apple: client)
          Issue.record("an unknown transaction was finished")
        } catch let error as LedgerError {
          #expect(error.code == .appleRefused)
          #expect(error.appleErrorCode == APIErrorCode.transactionIdNotFound.rawValue)
        }
        let count = try await database.asWriter { client in
          try await LogStatements.counts(on: client, logger: TestDatabase.logger).events
        }
        #expect(count == 1)
      }
    }
  }

  @Test func requestSignaturesAreApplesJWSForms() async throws {
    let privateKey = P256.Signing.PrivateKey()
    let key = APIKey(
      keyId: "SIGNKEY001", issuerId: "6a3f9c1e-0000-4000-8000-000000000009",
      bundleId: "com.example.app", privateKey: privateKey)
    try await H.withLedger { ledger, _ in
      var bought = F.transaction("5300", purchased: 0, expires: 30, token: Self.account)
      bought.offerType = .introductory
      bought.appTransactionId = Self.download
      _ = try await ledger.ingest(
        signedTransaction: try SignedFixtures(pki: H.pki).transaction(bought))
      let promo = try await AppleActions(ledger: ledger).signPromotionalOfferJWS(
        for: Self.account, productId: "pro.monthly", offerIdentifier: "SPRING50", key: key)
      let promoClaims = try Self.verified(promo.jws, with: privateKey.publicKey, kid: "SIGNKEY001")
      #expect(promoClaims["aud"] as? String == "promotional-offer")
      #expect(promoClaims["bid"] as? String == "com.example.app")
      #expect(promoClaims["iss"] as? String == key.issuerId)
      #expect(promoClaims["offerIdentifier"] as? String == "SPRING50")
      #expect(promoClaims["transactionId"] as? String == Self.download)
      #expect(promoClaims["nonce"] as? String == promo.nonce)
      // The account had its introductory offer in the group: not eligible.
      let intro = try await AppleActions(ledger: ledger).signIntroductoryOfferEligibility(
        for: Self.account, productId: "pro.monthly", key: key)
      let introClaims = try Self.verified(intro.jws, with: privateKey.publicKey, kid: "SIGNKEY001")
      #expect(introClaims["aud"] as? String == "introductory-offer-eligibility")
      #expect(introClaims["allowIntroductoryOffer"] as? Bool == false)
      #expect(introClaims["productId"] as? String == "pro.monthly")
      // Another group: eligible.
      let other = try await AppleActions(ledger: ledger).signIntroductoryOfferEligibility(
        for: Self.account, productId: "other.monthly", subscriptionGroupIdentifier: "group.other",
        key: key)
      let otherClaims = try Self.verified(other.jws, with: privateKey.publicKey, kid: "SIGNKEY001")
      #expect(otherClaims["allowIntroductoryOffer"] as? Bool == true)
      await #expect(throws: LedgerError.self) {
        _ = try await AppleActions(ledger: ledger).signIntroductoryOfferEligibility(
          for: Self.account, productId: "never.seen", key: key)
      }
    }
  }

  /// The JWS's claims once its ES256 signature verifies with `key` and its header names `kid`.
  static func verified(_ jws: String, with key: P256.Signing.PublicKey, kid: String) throws
    -> [String: Any]
  {
    let parts = jws.split(separator: ".").map(String.init)
    #expect(parts.count == 3)
    func bytes(_ text: String) -> Data {
      var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(
        of: "_", with: "/")
      while base64.count % 4 != 0 { base64 += "=" }
      return Data(base64Encoded: base64) ?? Data()
    }
    let header = try JSONSerialization.jsonObject(with: bytes(parts[0])) as? [String: Any]
    #expect(header?["alg"] as? String == "ES256" && header?["kid"] as? String == kid)
    let signature = try P256.Signing.ECDSASignature(rawRepresentation: bytes(parts[2]))
    #expect(key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
    return try JSONSerialization.jsonObject(with: bytes(parts[1])) as? [String: Any] ?? [:]
  }
}
