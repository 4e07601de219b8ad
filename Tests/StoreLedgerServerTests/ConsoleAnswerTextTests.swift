import StoreLedgerCore
import Testing

@testable import StoreLedgerServer

/// The answer sent to Apple, as the console words it.
@Suite struct ConsoleAnswerTextTests {
  @Test func theAnswerSaysEveryFieldSent() {
    let sent = ConsumptionInformation(
      customerConsented: true, deliveryStatus: .delivered, sampleContentProvided: true,
      consumptionPercentage: 60_000, refundPreference: .decline)
    #expect(
      AccountPage.answer(sent)
        == "customer consented, delivery DELIVERED, 60.0 % consumed, sample content provided, "
        + "refund preference DECLINE")
    #expect(
      AccountPage.answer(
        ConsumptionInformation(
          customerConsented: false, deliveryStatus: .delivered, sampleContentProvided: false)
      )
      .hasPrefix("no consent, delivery "))
  }
}

@Suite struct ConsoleNumberTests {
  @Test func countsHaveThousandsSeparators() {
    #expect(AccountPage.count(0) == "0")
    #expect(AccountPage.count(999) == "999")
    #expect(AccountPage.count(1_000) == "1,000")
    #expect(AccountPage.count(1_234_567) == "1,234,567")
    #expect(AccountPage.count(-45_000) == "-45,000")
  }
}
