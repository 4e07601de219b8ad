import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Crypto
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Promotional offer signatures in Apple's format, and eligibility decided from the ledger.
@Suite(.serialized) struct OfferTests {
  typealias H = SimulatedAppStoreHarness
  typealias F = LedgerFixtures

  @Test func theSignatureVerifiesOverApplesPayload() throws {
    let nonce = UUID()
    let time = Date(timeIntervalSince1970: 1_767_225_600.123)
    let signature = try PromotionalOfferSignature.sign(
      productId: "pro.monthly", offerIdentifier: "SPRING50",
      appAccountToken: F.account(3).uppercased(), key: H.apiKey, nonce: nonce, timestamp: time)
    #expect(signature.timestamp == 1_767_225_600_123)
    #expect(signature.nonce == nonce.uuidString.lowercased())
    #expect(signature.appAccountToken == F.account(3))
    // Apple's order, each part separated by U+2063 (INVISIBLE SEPARATOR).
    let separator = "\u{2063}"
    let message = [
      "com.example.app", H.apiKey.keyId, "pro.monthly", "SPRING50", F.account(3),
      nonce.uuidString.lowercased(), "1767225600123",
    ].joined(separator: separator)
    let der = try #require(Data(base64Encoded: signature.signature))
    let parsed = try P256.Signing.ECDSASignature(derRepresentation: der)
    #expect(H.apiKey.publicKey.isValidSignature(parsed, for: Data(message.utf8)))
    #expect(!H.apiKey.publicKey.isValidSignature(parsed, for: Data((message + "0").utf8)))
  }

  @Test func eligibilityComesFromWhatAppleSigned() async throws {
    let token = F.account(11)
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890), signer: H.pki,
      now: F.t(90))
    var trial = F.transaction("9001", purchased: 1, expires: 8, token: token, group: "pro")
    trial.offerType = .introductory
    trial.offerDiscountType = .freeTrial
    trial.price = 0
    trial.currency = "EUR"
    var paid = F.transaction(
      "9002", original: "9001", purchased: 8, expires: 38, token: token, group: "pro")
    paid.price = 9_990
    paid.currency = "EUR"
    let other = F.transaction(
      "9101", product: "music.monthly", purchased: 5, expires: 35, token: token, group: "music")
    for transaction in [trial, paid, other] { store.put(transaction, customer: "c") }
    var renewal = F.renewal("9001", signed: 40, autoRenew: .off, token: token)
    renewal.eligibleWinBackOfferIds = ["COMEBACK1"]
    renewal.environment = .sandbox
    let signedRenewal = try H.pki.sign(renewal)
    try await H.withLedger { ledger, _ in
      for id in ["9001", "9002", "9101"] {
        _ = try await ledger.ingest(signedTransaction: store.signedTransaction(id)!)
      }
      _ = try await ledger.ingest(signedRenewalInfo: signedRenewal, source: "test")
      let eligibility = try await AppleActions(ledger: ledger).offerEligibility(for: token)
      let pro = try #require(eligibility.groups.first { $0.subscriptionGroupIdentifier == "pro" })
      #expect(!pro.introductoryOfferEligible && pro.introductoryOfferUsedIn == ["9001"])
      #expect(pro.winBackOfferIds == ["COMEBACK1"] && pro.winBackDecidedBy != nil)
      let music = try #require(
        eligibility.groups.first { $0.subscriptionGroupIdentifier == "music" })
      #expect(music.introductoryOfferEligible && music.winBackOfferIds.isEmpty)
      #expect(eligibility.purchases.map(\.transactionId) == ["9001", "9101", "9002"])
      #expect(eligibility.purchases.last?.price == 9_990)

      let signed = try await AppleActions(ledger: ledger).signPromotionalOffer(
        for: token, productId: "pro.monthly", offerIdentifier: "SPRING50", key: H.apiKey)
      #expect(signed.appAccountToken == token)
      await #expect(throws: LedgerError.self) {
        try await AppleActions(ledger: ledger).signPromotionalOffer(
          for: "not-a-uuid", productId: "pro.monthly", offerIdentifier: "SPRING50", key: H.apiKey)
      }
    }
  }
}
