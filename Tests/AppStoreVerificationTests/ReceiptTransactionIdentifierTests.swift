import AppStoreVerification
import Foundation
import StoreLedgerTestSupport
import Testing

/// StoreKit 1 receipts from Apple's test data give the identifiers its README lists.
@Suite struct ReceiptTransactionIdentifierTests {
  @Test func legacyTransactionReceipt() throws {
    let receipt = try SharedFixtures.mockSigned("legacyTransaction")
    #expect(try ReceiptTransactionIdentifier.fromLegacyTransactionReceipt(receipt) == "33993399")
  }

  @Test func appReceiptWithoutPurchases() throws {
    let receipt = try SharedFixtures.xcode("xcode-app-receipt-empty")
    #expect(try ReceiptTransactionIdentifier.fromAppReceipt(receipt) == nil)
  }

  @Test func appReceiptWithAPurchase() throws {
    let receipt = try SharedFixtures.xcode("xcode-app-receipt-with-transaction")
    #expect(try ReceiptTransactionIdentifier.fromAppReceipt(receipt) == "0")
  }

  @Test(arguments: [
    "", "not base64!", "AAAA", "MIAGCSqGSIb3DQEHAqCAMIACAQE=",
    Data("{}".utf8).base64EncodedString(),
  ])
  func malformedReceiptsGiveATypedError(receipt: String) {
    #expect(throws: VerificationError.self) {
      try ReceiptTransactionIdentifier.fromAppReceipt(receipt)
    }
    #expect(throws: VerificationError.self) {
      try ReceiptTransactionIdentifier.fromLegacyTransactionReceipt(receipt)
    }
  }

  @Test func truncatedAppReceiptsNeverCrash() throws {
    let receipt = try SharedFixtures.xcode("xcode-app-receipt-with-transaction")
    let bytes = try #require(Data(base64Encoded: receipt))
    for length in stride(from: 0, to: bytes.count, by: 13) {
      let truncated = bytes.prefix(length).base64EncodedString()
      #expect(throws: VerificationError.self) {
        try ReceiptTransactionIdentifier.fromAppReceipt(truncated)
      }
    }
  }
}
