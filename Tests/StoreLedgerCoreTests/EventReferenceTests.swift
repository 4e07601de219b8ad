import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// How an explanation dates what it cites: Apple's data by the date Apple signed it, the
/// ledger's own events (a grant, a debit) by the backend's time, never as "signed".
struct EventReferenceTests {
  typealias F = LedgerFixtures

  @Test func onlyWhatAppleSignedIsSaidToBeSigned() {
    let text = { (time: Timestamp) in String(time.milliseconds) }
    let notification = F.notification(
      .didRenew, signed: 1, transaction: F.transaction("1", purchased: 1, expires: 31))
    #expect(notification.reference.isSignedByApple)
    #expect(notification.reference.dated(text) == "signed \(F.t(1).milliseconds)")
    let debit = F.debit("d1", product: "gems", quantity: 1, at: 2)
    #expect(!debit.reference.isSignedByApple)
    #expect(debit.reference.dated(text) == "at \(F.t(2).milliseconds)")
    let grant = EventReference(key: "g", eventType: EventTypes.grant, signedDate: nil)
    #expect(grant.dated(text) == "at an unknown time")
  }
}
