import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

@testable import StoreLedgerServer

/// Guessing a named key's secret: ~280 guesses a second were once answered 401 without end.
/// Now the tenth wrong secret for a key's id locks that id for a minute — the right secret
/// too, over HTTP and at the console's sign-in — with `Retry-After`, a warning and a counted
/// alarm; other keys go on working, and keys that name no id lock nothing (anyone could lock
/// the operator's keys out) but raise the alarm when they come in bursts. Guesses at keys that
/// name no id were limited by nothing but that alarm: now the thirtieth failure from one
/// client address in a minute locks the address (every key from it); each lock of a key or an
/// address lasts twice the one before.
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

  /// Each lock lasts twice the last, up to the longest; a subject quiet for the longest lock
  /// starts again at one window. An address locks after `perAddress` failures.
  @Test func locksBackOffAndAQuietSubjectStartsAgain() {
    let throttle = AuthenticationThrottle(
      policy: .init(
        window: .seconds(60), perKey: 3, perAddress: 5, others: 100, longestLock: .seconds(200)),
      logger: H.logger)
    let address = "address 198.51.100.7"
    var now = ContinuousClock.now
    var lengths: [Int64] = []
    for _ in 0..<4 {
      for _ in 0..<5 {
        #expect(throttle.lockedFor(address, now: now) == nil)
        throttle.failed(address, now: now)
        now += .milliseconds(10)
      }
      let wait = throttle.lockedFor(address, now: now)
      lengths.append((wait ?? .zero).components.seconds + 1)
      now += wait ?? .zero
    }
    #expect(lengths == [60, 120, 200, 200], "each lock twice the last, at most the longest")
    now += .seconds(200)
    for _ in 0..<5 { throttle.failed(address, now: now) }
    #expect(
      throttle.lockedFor(address, now: now).map { $0 <= .seconds(60) } == true,
      "quiet for the longest lock: one window again")
    #expect(throttle.lockedFor("address 198.51.100.8", now: now) == nil, "another address")
  }

  /// The address counted: a peer's own, an IPv6 client's /64, and the client a trusted proxy
  /// names — never what an untrusted peer writes in `X-Forwarded-For`.
  @Test func theClientAddressIsThePeerOrWhatATrustedProxySays() throws {
    let clients = ClientAddress(trustedProxies: ["10.0.0.5", "fd00::5"])
    func subject(_ peer: String, _ forwarded: String? = nil) throws -> String? {
      var headers = HTTPFields()
      if let forwarded { headers[ClientAddress.forwardedFor] = forwarded }
      return clients.subject(peer: try SocketAddress(ipAddress: peer, port: 4000), headers: headers)
    }
    #expect(try subject("198.51.100.7") == "address 198.51.100.7")
    #expect(try subject("198.51.100.7", "203.0.113.1") == "address 198.51.100.7", "not a proxy")
    #expect(try subject("2001:db8:1:2:aaaa::1") == "address 2001:db8:1:2::/64")
    #expect(try subject("2001:db8:1:2:bbbb::9") == "address 2001:db8:1:2::/64", "same /64")
    #expect(try subject("::ffff:198.51.100.7") == "address 198.51.100.7")
    #expect(try subject("10.0.0.5", "203.0.113.1") == "address 203.0.113.1")
    // A client may write its own X-Forwarded-For; the proxy appends the peer it saw: the
    // rightmost hop that is not ours is the one our proxies vouch for.
    #expect(try subject("10.0.0.5", "192.0.2.66, 203.0.113.1") == "address 203.0.113.1")
    #expect(try subject("10.0.0.5", "203.0.113.1, fd00::5") == "address 203.0.113.1")
    #expect(try subject("10.0.0.5", "not-an-address") == "address 10.0.0.5")
    #expect(try subject("10.0.0.5") == "address 10.0.0.5")
    #expect(clients.subject(peer: nil, headers: [:]) == nil)
    #expect(ServerConfiguration.isIPAddress("fd00::5"))
    #expect(!ServerConfiguration.isIPAddress("proxy.internal"))
  }

  /// Over a real connection: thirty unknown keys from one address lock it — the configured
  /// key and the console's sign-in from it too — with `Retry-After`, one warning and one
  /// counted alarm. Behind a trusted proxy, the lock is the client's, not the proxy's.
  @Test func failuresFromOneAddressLockThatAddress() async throws {
    let (ledger, _, configuration) = try H.inMemory()
    let application = buildApplication(
      serving: ledger, configuration: configuration, logger: H.logger)
    try await application.test(.live) { client in
      func get(_ key: String) async throws -> TestResponse {
        try await client.execute(
          uri: "/v1/accounts/00000000-0000-4000-8000-000000000001/consumables", method: .get,
          headers: [.authorization: "Bearer \(key)"])
      }
      #expect(try await get(H.apiKey).status == .ok)
      for guess in 0..<30 {
        #expect(try await get("sk-guess-\(guess)").status == .unauthorized, "guess \(guess)")
      }
      let locked = try await get(H.apiKey)
      #expect(locked.status == .tooManyRequests, "every key from a locked address")
      #expect(try H.errorCode(locked) == "address_locked")
      #expect(Int(locked.headers[.retryAfter] ?? "") ?? 0 >= 59)
      let signIn = try await client.execute(
        uri: "/console/sign-in", method: .post,
        headers: [.contentType: "application/x-www-form-urlencoded"],
        body: ByteBuffer(string: "key=\(H.apiKey)"))
      #expect(signIn.status == .tooManyRequests)
      #expect(signIn.headers[.setCookie] == nil)
      // The webhook needs no key: Apple's notifications are never locked out.
      let webhook = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        headers: [.contentType: "application/json"],
        body: ByteBuffer(string: #"{"signedPayload":"not.a.jws"}"#))
      #expect(webhook.status != .tooManyRequests)
      let exposition = String(
        buffer: try await client.execute(uri: "/metrics", method: .get).body)
      #expect(exposition.contains(#"storeledger_authentication_alarms_total{kind="address"} 1"#))
    }
    var proxied = configuration
    proxied.trustedProxies = ["127.0.0.1", "::1"]
    let behindProxy = buildApplication(
      serving: ledger, configuration: proxied, logger: H.logger)
    try await behindProxy.test(.live) { client in
      func get(_ key: String, from address: String) async throws -> TestResponse {
        try await client.execute(
          uri: "/v1/accounts/00000000-0000-4000-8000-000000000001/consumables", method: .get,
          headers: [.authorization: "Bearer \(key)", ClientAddress.forwardedFor: address])
      }
      for guess in 0..<30 {
        let answer = try await get("sk-guess-\(guess)", from: "203.0.113.9")
        #expect(answer.status == .unauthorized)
      }
      let locked = try await get(H.apiKey, from: "203.0.113.9")
      #expect(locked.status == .tooManyRequests)
      let other = try await get(H.apiKey, from: "203.0.113.10")
      #expect(other.status == .ok, "another client")
    }
  }
}
