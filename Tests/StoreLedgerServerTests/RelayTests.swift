import AppStoreSimulator
import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerServer
import StoreLedgerTestSupport
import Synchronization
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Apple's notifications relayed to other systems, on a real PostgreSQL: the simulator delivers
/// (with duplicates) through a recording proxy (what "Apple" put on the wire, some bodies in
/// another spacing) to the real webhook; one target fails three requests in ten (a body at
/// most twice), another is down. Every notification reaches the flaky one exactly once, byte for byte; each attempt
/// is in the log; the one that is down ends with its notifications dead-lettered.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct RelayTests {
  typealias H = ServerHarness

  /// What the proxy and the targets saw.
  final class Wire: Sendable {
    struct State {
      /// Bodies "Apple" sent, each once.
      var sent: Set<[UInt8]> = []
      /// The bodies the webhook stored (answered `"duplicate": false`): one per notification
      /// (a notification signed again for a retry is another body of the same notification).
      var stored: Set<[UInt8]> = []
      var webhookStatuses: [Int] = []
      var accepted: [[UInt8]] = []
      var refusedOnPurpose = 0
      /// How often each body was refused: at most twice, so a run of failures is retried
      /// and no body outlives the retry window however slow the machine.
      var refusals: [[UInt8]: Int] = [:]
      var flakyRequests = 0
      var downRequests = 0
      var downBodies: Set<[UInt8]> = []
    }
    let state = Mutex(State())
    let webhook = Mutex<String?>(nil)
  }

  /// Apple's envelope in another spacing, for one notification in five (by its bytes, so a
  /// retry of it is sent the same way): a relay sends on what came, not a rebuilt body.
  static func asApple(_ body: [UInt8]) -> [UInt8] {
    guard body.count % 5 == 0,
      let object = try? JSONDecoder().decode([String: String].self, from: Data(body)),
      let jws = object["signedPayload"]
    else { return body }
    return Array("{ \"signedPayload\" : \"\(jws)\" }\n".utf8)
  }

  /// The loopback side: `/apple` records and forwards to the webhook, `/flaky` answers 500
  /// to three requests in ten (a seeded draw), `/down` always 503.
  static func withWire(_ wire: Wire, _ body: @Sendable (Int) async throws -> Void) async throws {
    let router = Router()
    let draws = Mutex(SeededRandom(seed: 11))
    router.post("/apple") { request, _ -> Response in
      var request = request
      let bytes = Self.asApple(
        Array(try await request.collectBody(upTo: 1 << 20).readableBytesView))
      wire.state.withLock { _ = $0.sent.insert(bytes) }
      guard let url = wire.webhook.withLock({ $0 }) else {
        return Response(status: .serviceUnavailable)
      }
      var forward = HTTPClientRequest(url: url)
      forward.method = .POST
      forward.headers.add(name: "Content-Type", value: "application/json")
      forward.body = .bytes(ByteBuffer(bytes: bytes))
      let answer = try await HTTPClient.shared.execute(forward, timeout: .seconds(30))
      let reply = try await answer.body.collect(upTo: 1 << 16)
      let status = Int(answer.status.code)
      let duplicate = try? JSONDecoder().decode(
        [String: JSONValue].self, from: Data(reply.readableBytesView))["duplicate"]
      wire.state.withLock {
        $0.webhookStatuses.append(status)
        if duplicate == .bool(false) { $0.stored.insert(bytes) }
      }
      return Response(status: .init(code: status))
    }
    router.post("/flaky") { request, _ -> HTTPResponse.Status in
      var request = request
      let bytes = Array(try await request.collectBody(upTo: 1 << 20).readableBytesView)
      let fails = draws.withLock { $0.next() % 10 < 3 }
      return wire.state.withLock { state in
        state.flakyRequests += 1
        if fails, state.refusals[bytes, default: 0] < 2 {
          state.refusals[bytes, default: 0] += 1
          state.refusedOnPurpose += 1
          return .internalServerError
        }
        state.accepted.append(bytes)
        return .ok
      }
    }
    router.post("/down") { request, _ -> HTTPResponse.Status in
      var request = request
      let bytes = Array(try await request.collectBody(upTo: 1 << 20).readableBytesView)
      wire.state.withLock {
        $0.downRequests += 1
        $0.downBodies.insert(bytes)
      }
      return .serviceUnavailable
    }
    let app = Application(
      router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    try await app.test(.live) { client in try await body(try #require(client.port)) }
  }

  static func json(
    _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String,
    _ body: [String: Any]? = nil
  ) async throws -> (HTTPResponse.Status, JSONValue) {
    let response = try await client.execute(
      uri: uri, method: method, headers: H.authorized + [.contentType: "application/json"],
      body: body.map(H.json))
    return (response.status, try H.value(response))
  }

  /// A notification's type, read from the body's JWS (what a target would read).
  static func notificationType(_ body: [UInt8]) -> String? {
    guard let object = try? JSONDecoder().decode([String: String].self, from: Data(body)),
      let jws = object["signedPayload"]
    else { return nil }
    let parts = jws.split(separator: ".")
    guard parts.count == 3 else { return nil }
    var base64 = parts[1].replacingOccurrences(of: "-", with: "+")
      .replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    guard let data = Data(base64Encoded: base64),
      let payload = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    else { return nil }
    return payload["notificationType"] as? String
  }

  static func text(_ value: JSONValue?) -> String? {
    if case .string(let text)? = value { return text }
    return nil
  }

  static func sha256(_ bytes: [UInt8]) -> String {
    SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
  }

  @Test func aFlakyTargetEndsWithEveryNotificationOnceByteForByteWithItsAttemptsInTheLog()
    async throws
  {
    let simulation = Simulation(SimulationConfiguration(customers: 40, months: 6, seed: 31))
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: SignedFixtures.bundleId, appAppleId: 1_234_567_890),
      signer: H.pki, now: simulation.configuration.start)
    simulation.apply(to: store, through: simulation.configuration.end)
    let wire = Wire()
    try await Self.withWire(wire) { port in
      try await TestDatabase.withMigrated { database in
        var configuration = H.configuration(database)
        var relays = RelayConfiguration()
        relays.initialDelay = .milliseconds(20)
        relays.maximumDelay = .milliseconds(200)
        // Long enough for the flaky target (a run of failures is retried), short enough for
        // the one that is down to end dead while the test waits.
        relays.retryFor = .seconds(8)
        relays.targetsInterval = .milliseconds(100)
        relays.timeout = .seconds(5)
        configuration.relays = relays
        let ledgerConfiguration = configuration.ledger
        let application = try buildApplication(configuration: configuration, logger: H.logger)
        try await application.test(.ahc(.http)) { client in
          let (added, target) = try await Self.json(
            client, .post, "/v1/relays",
            ["name": "Staging", "url": "http://127.0.0.1:\(port)/flaky?token=s3cr3t-q"])
          #expect(added == .created)
          #expect(target["name"] == .string("staging"))
          #expect(target["urlKey"] == .string("127.0.0.1:\(port)/flaky"))
          #expect(target["notificationTypes"] == .null, "every type, said explicitly")
          let (addedDown, _) = try await Self.json(
            client, .post, "/v1/relays",
            [
              "name": "old-vendor", "url": "http://127.0.0.1:\(port)/down",
              "environments": ["Sandbox"], "notificationTypes": ["DID_RENEW"],
            ])
          #expect(addedDown == .created)
          let listed = try await client.execute(
            uri: "/v1/relays", method: .get, headers: H.authorized)
          #expect(!String(buffer: listed.body).contains("s3cr3t"), "a URL's query is never shown")

          wire.webhook.withLock {
            $0 = "http://127.0.0.1:\(client.port!)/v1/notifications/appstore"
          }
          await NotificationDeliverer(
            store: store, webhookURL: "http://127.0.0.1:\(port)/apple",
            faults: DeliveryFaults(duplicateFraction: 0.1, reorder: true, seed: 9),
            logger: Logger(label: "test.simulator", factory: { _ in SwiftLogNoOpLogHandler() })
          ).deliverPending()

          let sent = wire.state.withLock { $0.stored }
          #expect(sent.count > 100)
          #expect(sent.contains { $0.first == UInt8(ascii: "{") && $0[1] == UInt8(ascii: " ") })
          #expect(wire.state.withLock { $0.webhookStatuses.allSatisfy { $0 == 200 } })
          let renewals = Set(sent.filter { Self.notificationType($0) == "DID_RENEW" })
          #expect(renewals.count > 10)

          // Wait until both targets are settled: everything delivered to the flaky one,
          // everything dead at the one that is down.
          let deadline = ContinuousClock.now + .seconds(120)
          var counts: [String: JSONValue] = [:]
          while ContinuousClock.now < deadline {
            let (_, list) = try await Self.json(client, .get, "/v1/relays")
            guard case .array(let targets)? = list["targets"] else { break }
            for case .object(let entry) in targets {
              if case .string(let name)? = entry["name"] { counts[name] = .object(entry) }
            }
            let flaky = wire.state.withLock { Set($0.accepted).count }
            if flaky == sent.count, counts["staging"]?["retrying"] == .number(0),
              counts["staging"]?["waiting"] == .number(0),
              counts["old-vendor"]?["dead"] == .number(Double(renewals.count))
            {
              break
            }
            try await Task.sleep(for: .milliseconds(200))
          }
          let state = wire.state.withLock { $0 }
          // Exactly once, byte for byte: every body sent reached the target, none twice.
          #expect(state.accepted.count == sent.count, "no notification accepted twice")
          #expect(Set(state.accepted) == sent, "the bodies as \"Apple\" sent them")
          #expect(sent.isSubset(of: state.sent))
          #expect(state.refusedOnPurpose > sent.count / 5, "about three requests in ten failed")
          #expect(counts["staging"]?["delivered"] == .number(Double(sent.count)))
          // Only renewals went to the target that filters by type, each dead after retries.
          #expect(state.downBodies == renewals)
          #expect(counts["old-vendor"]?["dead"] == .number(Double(renewals.count)))

          // The log answers what staging received, and when: every attempt, page by page.
          var attempts: [JSONValue] = []
          var before: String? = nil
          repeat {
            let (status, page) = try await Self.json(
              client, .get,
              "/v1/relays/staging/attempts?limit=97" + (before.map { "&before=\($0)" } ?? ""))
            #expect(status == .ok)
            #expect(
              page["total"] == .number(Double(state.flakyRequests)), "every page tells the whole")
            guard case .array(let items)? = page["attempts"] else { break }
            attempts += items
            if case .number(let next)? = page["nextBefore"] {
              before = "\(Int(next))"
            } else {
              before = nil
            }
          } while before != nil
          #expect(attempts.count == state.flakyRequests, "one record per request the target got")
          print(
            "relays: \(sent.count) notifications stored, \(state.flakyRequests) requests to "
              + "staging (\(state.refusedOnPurpose) refused), \(attempts.count) attempts in the "
              + "log; \(renewals.count) renewals dead at old-vendor after \(state.downRequests) "
              + "requests")
          let delivered = attempts.filter { $0["outcome"] == .string("delivered") }
          #expect(delivered.count == sent.count)
          #expect(attempts.allSatisfy { $0["outcome"] != .string("dead") })
          #expect(
            attempts.filter { $0["outcome"] == .string("failed") }.count
              == state.refusedOnPurpose)
          #expect(
            Set(delivered.compactMap { $0["bodySha256"] })
              == Set(
                sent.map { JSONValue.string(Self.sha256($0)) }),
            "each delivered record names the bytes sent")
          #expect(
            Set(delivered.compactMap { $0["notificationUUID"] }).count == sent.count,
            "one delivered record per notification")
          let (_, one) = try await Self.json(
            client, .get,
            "/v1/relays/staging/attempts?notificationUUID="
              + (Self.text(delivered.first?["notificationUUID"]) ?? ""))
          guard case .array(let ofOne)? = one["attempts"] else {
            Issue.record("no attempts of one notification")
            return
          }
          #expect(ofOne.filter { $0["outcome"] == .string("delivered") }.count == 1)

          // The console shows the targets and, searched by notification, what one was sent.
          let base = "http://127.0.0.1:\(try #require(client.port))/console"
          var signIn = URLRequest(url: URL(string: "\(base)/sign-in")!)
          signIn.httpMethod = "POST"
          signIn.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
          signIn.httpBody = Data("key=\(H.apiKey)".utf8)
          let session = URLSession(configuration: .ephemeral)
          _ = try await session.data(for: signIn)
          let (listPage, _) = try await session.data(from: URL(string: "\(base)/relays")!)
          let listHTML = String(decoding: listPage, as: UTF8.self)
          #expect(listHTML.contains("127.0.0.1:\(port)/flaky"))
          #expect(listHTML.contains("/relays/old-vendor"))
          #expect(!listHTML.contains("s3cr3t"))
          let uuid = try #require(Self.text(delivered.first?["notificationUUID"]))
          let (targetPage, _) = try await session.data(
            from: URL(string: "\(base)/relays/staging?notification=\(uuid)")!)
          let targetHTML = String(decoding: targetPage, as: UTF8.self)
          #expect(targetHTML.contains(uuid) && targetHTML.contains(">delivered<"))

          // The dead letters, and sending them again.
          let (_, dead) = try await Self.json(
            client, .get, "/v1/relays/old-vendor/deliveries?state=dead&limit=1000")
          guard case .array(let letters)? = dead["deliveries"] else {
            Issue.record("no dead letters")
            return
          }
          #expect(letters.count == renewals.count)
          #expect(dead["total"] == .number(Double(renewals.count)) && dead["nextCursor"] == .null)
          #expect(letters.allSatisfy { $0["lastStatus"] == .number(503) })
          // A page of one at a time reaches every dead letter once, each page with the total.
          var keys: [JSONValue] = []
          var path = "/v1/relays/old-vendor/deliveries?state=dead&limit=1"
          while true {
            let (status, page) = try await Self.json(client, .get, path)
            #expect(status == .ok && page["total"] == .number(Double(renewals.count)))
            if case .array(let rows)? = page["deliveries"] {
              keys += rows.compactMap { $0["notificationUUID"] }
            }
            guard case .string(let cursor)? = page["nextCursor"] else { break }
            path = "/v1/relays/old-vendor/deliveries?state=dead&limit=1&cursor=\(cursor)"
          }
          #expect(keys.count == renewals.count && Set(keys.map(\.description)).count == keys.count)
          let (_, retried) = try await Self.json(client, .post, "/v1/relays/old-vendor/retry")
          #expect(retried["queued"] == .number(Double(renewals.count)))
          let (removed, _) = try await Self.json(client, .delete, "/v1/relays/old-vendor")
          #expect(removed == .ok)

          // The audit checks the relays' records with the rest and names them.
          let attemptCount = attempts.count
          try await database.asWriter { writer in
            let ledger = try Ledger(
              client: writer, configuration: ledgerConfiguration, logger: TestDatabase.logger)
            let audit = try await LedgerMaintenance(ledger: ledger).audit()
            #expect(audit.isConsistent, "\(audit.problems)")
            #expect(audit.relayEvents >= attemptCount + 3, "targets added, removed, attempts")
          }
        }
      }
    }
  }

  /// Bad input is refused with a clear error and stores nothing: a URL that is not http(s),
  /// a malformed name, an environment Apple does not have, a name in use, an unknown target.
  @Test func badTargetsAreRefusedAndChangeNothing() async throws {
    try await H.withServer { client, database in
      let (first, _) = try await Self.json(
        client, .post, "/v1/relays", ["name": "staging", "url": "https://staging.example/apple"])
      #expect(first == .created)
      let before = try await H.eventCount(database)
      let refusals: [([String: Any], HTTPResponse.Status, String)] = [
        (["name": "ftp", "url": "ftp://files.example/apple"], .badRequest, "http"),
        (["name": "-x", "url": "https://a.example/"], .badRequest, "name"),
        (
          ["name": "x", "url": "https://a.example/", "environments": ["Xcode"]], .badRequest,
          "environment"
        ),
        (["name": "Staging", "url": "https://b.example/"], .conflict, "exists"),
      ]
      for (body, status, words) in refusals {
        let response = try await client.execute(
          uri: "/v1/relays", method: .post,
          headers: H.authorized + [.contentType: "application/json"], body: H.json(body))
        #expect(response.status == status, "\(body)")
        #expect(String(buffer: response.body).lowercased().contains(words), "\(body)")
      }
      let gone = try await client.execute(
        uri: "/v1/relays/nobody", method: .delete, headers: H.authorized)
      #expect(gone.status == .notFound)
      #expect(try H.errorCode(gone) == "not_found")
      #expect(try await H.eventCount(database) == before, "nothing stored")
    }
  }
}

extension HTTPFields {
  fileprivate static func + (lhs: HTTPFields, rhs: HTTPFields) -> HTTPFields {
    var fields = lhs
    fields.append(contentsOf: rhs)
    return fields
  }
}
