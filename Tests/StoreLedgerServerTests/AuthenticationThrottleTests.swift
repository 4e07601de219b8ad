import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

@testable import StoreLedgerServer

/// Guessing a named key's secret: ~280 guesses a second were once answered 401 without end.
/// Now the tenth wrong secret for a key's id locks that id for a minute — the right secret
/// too, over HTTP and at the console's sign-in — with `Retry-After`, a warning and a counted
/// alarm; other keys go on working, and keys that name no id lock nothing (anyone could lock
/// the operator's keys out) but raise the alarm when they come in bursts.
struct AuthenticationThrottleTests {
  typealias H = ServerHarness

  @Test func tenWrongSecretsLockTheKeyAndNothingElse() async throws {
    let (ledger, _, configuration) = try H.inMemory()
    let keys = APIKeys(ledger: ledger)
    let target = try await keys.create(name: "backend", scopes: [.read, .console]).key
    let other = try await keys.create(name: "dashboard", scopes: [.read]).key
    let prefix =
      String(target.prefix { $0 != "_" }) + "_"
      + String(target.dropFirst(4).prefix { $0 != "_" })
    let application = buildApplication(
      serving: ledger, configuration: configuration, logger: H.logger)
    try await application.test(.router) { client in
      func get(_ key: String) async throws -> TestResponse {
        try await client.execute(
          uri: "/v1/accounts/00000000-0000-4000-8000-000000000001/consumables", method: .get,
          headers: [.authorization: "Bearer \(key)"])
      }
      for guess in 0..<10 {
        let answer = try await get("\(prefix)_wrong-secret-\(guess)")
        #expect(answer.status == .unauthorized, "guess \(guess)")
      }
      let locked = try await get(target)
      #expect(locked.status == .tooManyRequests, "the right secret is refused while locked")
      #expect(try H.errorCode(locked) == "key_locked")
      #expect(Int(locked.headers[.retryAfter] ?? "") ?? 0 > 0)
      #expect(try await get(other).status == .ok, "another key goes on working")
      let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
      let signIn = try await client.execute(
        uri: "/console/sign-in", method: .post, headers: form,
        body: ByteBuffer(string: "key=\(target)"))
      #expect(signIn.status == .tooManyRequests)
      #expect(signIn.headers[.setCookie] == nil)
      // Keys that name no id lock nothing: the configured key still answers after a burst.
      for guess in 0..<120 {
        #expect(try await get("sk-guess-\(guess)").status == .unauthorized)
      }
      #expect(try await get(H.apiKey).status == .ok)
      let exposition = String(
        buffer: try await client.execute(uri: "/metrics", method: .get).body)
      #expect(
        exposition.contains(#"storeledger_authentication_alarms_total{kind="named_key"} 1"#))
      #expect(
        exposition.contains(#"storeledger_authentication_alarms_total{kind="unknown_keys"} 1"#))
    }
  }

  /// The lock is the window after the last failure: before it runs out the key is refused,
  /// after it the key may be presented again (a clock given, never slept on).
  @Test func aLockRunsOutAWindowAfterTheLastFailure() {
    let throttle = AuthenticationThrottle(
      policy: .init(window: .seconds(60), perKey: 3, others: 5), logger: H.logger)
    let subject = AuthenticationThrottle.subject(of: "slk_0123456789abcdef_secret")
    #expect(subject == "key 0123456789abcdef")
    #expect(AuthenticationThrottle.subject(of: "sk-configured") == "other keys")
    let start = ContinuousClock.now
    for second in 0..<3 { throttle.failed(subject, now: start + .seconds(second)) }
    #expect(throttle.lockedFor(subject, now: start + .seconds(3)) != nil)
    #expect(throttle.lockedFor(subject, now: start + .seconds(61)) != nil)
    #expect(throttle.lockedFor(subject, now: start + .seconds(63)) == nil)
    #expect(throttle.lockedFor("key fedcba9876543210", now: start + .seconds(3)) == nil)
    for second in 0..<10 { throttle.failed("other keys", now: start + .seconds(second)) }
    #expect(throttle.lockedFor("other keys", now: start + .seconds(10)) == nil)
  }
}
