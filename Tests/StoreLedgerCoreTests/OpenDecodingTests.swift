import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Decoding never fails because Apple added a value or a field; it fails only on wrong types.
@Suite struct OpenDecodingTests {
  let decoder = JSONDecoder()

  @Test func unknownEnumerationValuesKeepTheirRawValue() throws {
    let json = """
      {"notificationType":"SOMETHING_NEW","subtype":"NEW_SUBTYPE","signedDate":1,
       "data":{"environment":"Staging","status":9,"consumptionRequestReason":"NEW_REASON"}}
      """
    let body = try decoder.decode(ResponseBodyV2DecodedPayload.self, from: Data(json.utf8))
    #expect(body.notificationType?.rawValue == "SOMETHING_NEW")
    #expect(body.notificationType?.isKnown == false)
    #expect(body.subtype?.rawValue == "NEW_SUBTYPE")
    #expect(body.data?.environment?.rawValue == "Staging")
    #expect(body.data?.status?.rawValue == 9)
    #expect(body.data?.status?.isKnown == false)
    #expect(body.data?.consumptionRequestReason?.rawValue == "NEW_REASON")
  }

  @Test func bodyObjectsAppleAddsLaterAreKeptAndNameTheApp() throws {
    let json = """
      {"notificationType":"WIDGETS_RECALLED","notificationUUID":"n","signedDate":5,
       "widgetInfo":{"bundleId":"com.example.app","environment":"Sandbox","appAppleId":41234,
                     "widgets":[{"id":1}],"reason":"r"},
       "topLevelFlag":true}
      """
    let body = try decoder.decode(ResponseBodyV2DecodedPayload.self, from: Data(json.utf8))
    #expect(body.bodyObjects == ["widgetInfo"])
    #expect(body.unknownBodyObjects == ["widgetInfo"])
    #expect(body.unknownMembers["topLevelFlag"] == .bool(true))
    #expect(body.environment == .sandbox)
    #expect(body.bundleId == "com.example.app")
    #expect(body.appAppleId == 41234)
    #expect(body.isUnderstood == false)
    // Encoding keeps every member: decoding the encoded form gives the same payload.
    let again = try decoder.decode(
      ResponseBodyV2DecodedPayload.self, from: try JSONEncoder().encode(body))
    #expect(again == body)
  }

  @Test func unclaimInfoNamesNoAppAndTheKnownBodiesStillDecide() throws {
    let unclaim = try decoder.decode(
      ResponseBodyV2DecodedPayload.self,
      from: Data(
        #"{"notificationType":"UNCLAIM_SEATS","unclaimInfo":{"unclaimSeatIds":["a","b"]}}"#.utf8))
    #expect(unclaim.unclaimInfo?.unclaimSeatIds == ["a", "b"])
    #expect(unclaim.environment == nil && unclaim.bundleId == nil)
    #expect(unclaim.isUnderstood)
    #expect(unclaim.bodyObjects == ["unclaimInfo"])
    // A known body decides even beside an unknown one that says otherwise.
    let both = try decoder.decode(
      ResponseBodyV2DecodedPayload.self,
      from: Data(
        #"{"notificationType":"TEST","data":{"environment":"Production","bundleId":"a"},"x":{"environment":"Sandbox","bundleId":"b"}}"#
          .utf8))
    #expect(both.environment == .production && both.bundleId == "a")
    #expect(both.bodyObjects == ["data", "x"])
  }

  @Test func knownValuesReportKnown() {
    #expect(NotificationType.didRenew.isKnown)
    #expect(SubscriptionStatus(rawValue: 4) == .billingGracePeriod)
    #expect(ProductType(rawValue: "Non-Renewing Subscription") == .nonRenewingSubscription)
  }

  @Test func unknownFieldsAreIgnoredByTheModel() throws {
    let json = """
      {"transactionId":"1","futureField":{"nested":[1,2,3]},"type":"Bundle Of Things",
       "revocationType":"ASSIGNMENT_REVOCATION","inAppOwnershipType":"ORGANIZATION"}
      """
    let transaction = try decoder.decode(JWSTransactionDecodedPayload.self, from: Data(json.utf8))
    #expect(transaction.transactionId == "1")
    #expect(transaction.type?.rawValue == "Bundle Of Things")
    #expect(transaction.revocationType?.rawValue == "ASSIGNMENT_REVOCATION")
    #expect(transaction.inAppOwnershipType?.isKnown == false)
  }

  @Test func missingFieldsDecodeAsAbsent() throws {
    let transaction = try decoder.decode(JWSTransactionDecodedPayload.self, from: Data("{}".utf8))
    #expect(transaction == JWSTransactionDecodedPayload())
  }

  @Test func wrongTypeFailsDecoding() {
    let json = #"{"data":{"appAppleId":"blue","bundleId":"com.example"}}"#
    #expect(throws: DecodingError.self) {
      try decoder.decode(ResponseBodyV2DecodedPayload.self, from: Data(json.utf8))
    }
  }

  @Test func numericIdentifiersMustBeStrings() {
    let json = #"{"transactionId":2000000141552796}"#
    #expect(throws: DecodingError.self) {
      try decoder.decode(JWSTransactionDecodedPayload.self, from: Data(json.utf8))
    }
  }

  @Test func encodingRoundTripsEveryModelField() throws {
    let original = try decoder.decode(
      JWSRenewalInfoDecodedPayload.self, from: SharedFixtures.model("signedRenewalInfo.json"))
    let again = try decoder.decode(
      JWSRenewalInfoDecodedPayload.self, from: JSONEncoder().encode(original))
    #expect(again == original)
  }
}

/// A commitment cancelled inside: the subscription's explanation names rule P1 and cites the
/// renewal info in force, none signed after the moment asked about.
@Suite struct CommitmentExplanationTests {
  @Test func explainNamesTheCommitmentRule() throws {
    let file = GoldenScenarioTests.directory.appendingPathComponent(
      "65-commitment-cancelled-inside.json")
    let scenario = try Scenario.decode(Data(contentsOf: file))
    let view = scenario.view()
    let time = Timestamp(milliseconds: 1_767_225_600_000 + 40 * 86_400_000)
    let why = try #require(view.explainSubscription("2000000000001", at: time))
    #expect(why.rule.contains("P1"))
    #expect(why.events.allSatisfy { ($0.signedDate ?? time) <= time })
    let early = Timestamp(milliseconds: 1_767_225_600_000 + 5 * 86_400_000)
    let before = try #require(view.explainSubscription("2000000000001", at: early))
    #expect(!before.rule.contains("P1"))
  }
}
