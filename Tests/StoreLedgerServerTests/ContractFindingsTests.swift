import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// What outside judges (schemathesis, Apple's own library) found in the HTTP API, each held
/// here: links with an owner, idempotency keys of their account, one form of instants, 405s
/// that say what a path takes, and RFC 3339 read in full.
@Suite(.serialized) struct ContractFindingsTests {
  typealias H = ServerHarness
  typealias F = LedgerFixtures
  static let owner = "00000000-0000-4000-8000-0000000000a1"
  static let other = "00000000-0000-4000-8000-0000000000b2"

  static func post(
    _ client: any TestClientProtocol, _ uri: String, _ body: [String: Any],
    key: String? = nil
  ) async throws -> TestResponse {
    var headers = H.authorized
    if let key { headers[HTTPField.Name("Idempotency-Key")!] = key }
    return try await client.execute(uri: uri, method: .post, headers: headers, body: H.json(body))
  }

  static func get(_ client: any TestClientProtocol, _ uri: String) async throws -> TestResponse {
    try await client.execute(uri: uri, method: .get, headers: H.authorized)
  }

  @Test func aLinkOfAPurchaseAnotherAccountHoldsIsRefusedUnlessItIsATransfer() async throws {
    try await H.withInProcessServer { client, database in
      let bought = F.transaction("1001", purchased: 0, expires: 36_500, token: Self.owner)
      let stored = try await Self.post(
        client, "/v1/transactions", ["signedTransaction": try H.signed.transaction(bought)])
      #expect(stored.status == .created)
      let before = try await H.eventCount(database)
      let refused = try await Self.post(
        client, "/v1/accounts/\(Self.other)/links", ["originalTransactionId": "1001"])
      #expect(refused.status == .conflict)
      #expect(try H.errorCode(refused) == "purchase_held_by_another_account")
      #expect(!String(buffer: refused.body).contains(Self.owner))
      #expect(try await H.eventCount(database) == before)

      let moved = try await Self.post(
        client, "/v1/accounts/\(Self.other)/links",
        ["originalTransactionId": "1001", "transfer": true])
      #expect(moved.status == .created)
      #expect(try await H.eventCount(database) == before + 1)
      let gained = try H.value(
        try await Self.get(client, "/v1/accounts/\(Self.other)/entitlements"))
      #expect(gained["entitlements"]?.array?.first?["active"] == .bool(true))
      let lost = try H.value(try await Self.get(client, "/v1/accounts/\(Self.owner)/entitlements"))
      #expect(lost["entitlements"]?.array?.contains { $0["active"] == .bool(true) } != true)
      // Asking again for the same move is no second move: the account holds it already.
      let again = try await Self.post(
        client, "/v1/accounts/\(Self.other)/links",
        ["originalTransactionId": "1001", "transfer": true])
      #expect(again.status.code < 300)
      #expect(try H.value(again)["streamId"] != .string("transfer:1001"))
      let back = try await Self.post(
        client, "/v1/accounts/\(Self.owner)/links", ["originalTransactionId": "1001"])
      #expect(try H.errorCode(back) == "purchase_held_by_another_account")
    }
  }

  @Test func anIdempotencyKeyBelongsToItsAccountAndItsRequest() async throws {
    try await H.withInProcessServer { client, database in
      for token in [Self.owner, Self.other] {
        let gems = F.transaction(
          "g-\(token.suffix(2))", product: "gems.100", type: .consumable, purchased: 0,
          token: token)
        _ = try await Self.post(
          client, "/v1/transactions", ["signedTransaction": try H.signed.transaction(gems)])
      }
      let path = { (token: String) in "/v1/accounts/\(token)/consumables/gems.100/debits" }
      let first = try await Self.post(client, path(Self.owner), ["quantity": 5], key: "k-1")
      #expect(first.status == .created)
      // The same key on another account is that account's own debit.
      let second = try await Self.post(client, path(Self.other), ["quantity": 5], key: "k-1")
      #expect(second.status == .created)
      // The same request again is a retry; another request under the key is refused.
      let retry = try await Self.post(client, path(Self.owner), ["quantity": 5], key: "k-1")
      #expect(retry.status == .ok)
      let before = try await H.eventCount(database)
      let reused = try await Self.post(client, path(Self.owner), ["quantity": 6], key: "k-1")
      #expect(reused.status == .unprocessableContent)
      #expect(try H.errorCode(reused) == "idempotency_key_reused")
      #expect(try await H.eventCount(database) == before)
    }
  }

  @Test func instantsAreUnixMillisecondsAndRFC3339IsReadInFull() async throws {
    try await H.withInProcessServer { client, _ in
      let bought = F.transaction("1009", purchased: 0, expires: 60, token: Self.owner)
      _ = try await Self.post(
        client, "/v1/transactions", ["signedTransaction": try H.signed.transaction(bought)])
      let events = try H.value(try await Self.get(client, "/v1/accounts/\(Self.owner)/events"))
      let first = events["events"]?.array?.first
      guard case .number(let recorded)? = first?["recordedAt"],
        case .number(let signed)? = first?["appleSignedAt"]
      else {
        Issue.record("the event's instants are not numbers")
        return
      }
      #expect(abs(recorded - Date().timeIntervalSince1970 * 1000) < 600_000)
      #expect(signed == Double(F.t(0).milliseconds))
      let same: [String] = [
        "2026-11-22T08:00:00Z", "2026-11-22t08:00:00z",
        "2026-11-22T09:30:00%2B01:30", "2026-11-22T03:00:00-05:00", "2026-11-22T08:00:00.000000Z",
      ]
      for at in same {
        let answer = try await Self.get(
          client,
          "/v1/accounts/\(Self.owner)/entitlements?at=\(at.replacingOccurrences(of: " ", with: "%20"))"
        )
        #expect(answer.status == .ok, "\(at)")
        #expect(try H.value(answer)["asOf"] == .number(1_795_334_400_000), "\(at)")
      }
      // A space for the T is refused: in a query string it is easily a '+', which readers
      // disagree about, and the document's pattern names one form.
      for bad in [
        "2026-11-22T08:00:00", "2026-02-30T08:00:00Z", "2026-11-22T24:00:00Z", "x",
        "2026-11-22%2008:00:00Z",
      ] {
        let answer = try await Self.get(client, "/v1/accounts/\(Self.owner)/entitlements?at=\(bad)")
        #expect(answer.status == .badRequest, "\(bad)")
      }
    }
  }

  @Test func aDocumentedPathAskedWithAnotherMethodAnswers405WithAllow() async throws {
    try await H.withInProcessServer { client, _ in
      for (uri, method, allow) in [
        ("/v1/transactions", HTTPRequest.Method.delete, "POST"),
        ("/health", .put, "GET"),
        ("/v1/accounts/\(Self.owner)/entitlements", .post, "GET"),
      ] {
        let answer = try await client.execute(uri: uri, method: method, headers: H.authorized)
        #expect(answer.status == .methodNotAllowed, "\(method) \(uri)")
        #expect(answer.headers[.allow] == allow)
        #expect(try H.errorCode(answer) == "method_not_allowed")
      }
      let unknown = try await client.execute(
        uri: "/v1/nothing", method: .get, headers: H.authorized)
      #expect(unknown.status == .notFound)
    }
  }
}
