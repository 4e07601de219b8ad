import Foundation
import StoreLedgerPostgres
import StoreLedgerCore

/// The rows both sides write: a transaction-sized payload and a JWS-sized raw string, so the
/// comparison includes the jsonb parsing and the bytes a real event carries.
enum BenchmarkEvents {
  static let payload: [UInt8] = {
    var fields: [String] = [
      #""transactionId":"2000000812345678""#, #""originalTransactionId":"2000000800000001""#,
      #""bundleId":"com.example.storeledger""#, #""productId":"com.example.premium.monthly""#,
      #""subscriptionGroupIdentifier":"21000001""#, #""purchaseDate":1761955200000"#,
      #""originalPurchaseDate":1759276800000"#, #""expiresDate":1764547200000"#,
      #""quantity":1"#, #""type":"Auto-Renewable Subscription""#,
      #""appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138""#,
      #""inAppOwnershipType":"PURCHASED""#, #""signedDate":1761955201000"#,
      #""environment":"Production""#, #""transactionReason":"RENEWAL""#,
      #""storefront":"USA""#, #""storefrontId":"143441""#, #""price":9990"#,
      #""currency":"USD""#, #""webOrderLineItemId":"2000000012345678""#,
    ]
    fields.append(#""appTransactionId":"704289572311686247""#)
    return Array("{\(fields.joined(separator: ","))}".utf8)
  }()

  static let rawSigned: String = String(
    repeating: "eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlF", count: 100)

  static func make(key: String) -> NewEvent {
    NewEvent(
      eventType: "transaction.observed.v1", idempotencyKey: key, payload: payload,
      environment: "Production", appleSignedAt: Date(timeIntervalSince1970: 1_761_955_201),
      rawSigned: rawSigned, metadata: Array(#"{"source":"benchmark"}"#.utf8))
  }
}
