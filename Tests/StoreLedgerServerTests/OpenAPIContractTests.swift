import AppStoreSimulator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

@testable import StoreLedgerServer

/// The served OpenAPI document held to the code: every route the router serves is documented
/// and every documented operation is served; its error codes are the codes the API answers;
/// and the answers to a simulated year's accounts fit the schemas documented for their status.
@Suite(.serialized) struct OpenAPIContractTests {
  typealias H = ServerHarness
  static let routes = DocumentedRoutes.shared
  static let logger = {
    var logger = Logger(label: "test.openapi")
    logger.logLevel = .error
    return logger
  }()

  @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsServed() async throws {
    let (ledger, _, configuration) = try H.inMemory()
    let metrics = ServerMetrics()
    let app = RunningApp(
      name: configuration.apps[0].name, ledger: ledger, runsProjector: false, metrics: metrics,
      logger: Self.logger)
    let router = buildRouter(
      apps: [app], configuration: configuration, metrics: metrics, logger: Self.logger)
    let served = Set(
      router.routes.map { "\($0.method.rawValue) \($0.path.description)" }
        .filter { !$0.contains("/console") })
    let documented = Set(Self.routes.documented)
    #expect(served.subtracting(documented).isEmpty, "served, not documented")
    #expect(documented.subtracting(served).isEmpty, "documented, not served")
    #expect(documented.count > 30)
  }

  @Test func theDocumentListsExactlyTheErrorCodesTheAPIAnswers() throws {
    let data = try OpenAPIDocument.data()
    let document = try JSONDecoder().decode(JSONValue.self, from: data)
    let listed = document["components"]?["schemas"]?["Error"]?["properties"]?["error"]?[
      "properties"]?["code"]?["enum"]?.array?.compactMap { value -> String? in
        if case .string(let code) = value { code } else { nil }
      }
    let answered = Set(APIError.ownCodes).union(LedgerError.Code.all.map(\.rawValue))
    #expect(Set(listed ?? []) == answered)
    // Every ledger code becomes one of them.
    for code in LedgerError.Code.all {
      #expect(answered.contains(APIError(LedgerError(code, "x")).code), "\(code)")
    }
  }

  @Test func theDocumentListsEveryKindOfChange() throws {
    let document = try JSONDecoder().decode(JSONValue.self, from: try OpenAPIDocument.data())
    let listed = document["components"]?["schemas"]?["Change"]?["properties"]?["type"]?["enum"]?
      .array?.compactMap { value -> String? in
        if case .string(let kind) = value { kind } else { nil }
      }
    #expect(Set(listed ?? []) == Set(AccountChange.Kind.allCases.map(\.rawValue)))
  }

  /// A simulated year through the webhook, then every account's reads: each answer's status
  /// is documented for its operation and its body fits the documented schema.
  @Test func everyAnswerFitsItsDocumentedSchema() async throws {
    let simulation = Simulation(SimulationConfiguration(customers: 40, months: 12, seed: 29))
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: SignedFixtures.bundleId, appAppleId: 1_234_567_890),
      signer: H.pki, now: simulation.configuration.start)
    simulation.apply(to: store, through: simulation.configuration.end)
    try await H.withServer { client, _ in
      let url = "http://127.0.0.1:\(try #require(client.port))/v1/notifications/appstore"
      await NotificationDeliverer(store: store, webhookURL: url, logger: Self.logger)
        .deliverPending()
      var checked = 0
      func check(_ method: HTTPRequest.Method, _ uri: String) async throws -> JSONValue {
        let response = try await client.execute(uri: uri, method: method, headers: H.authorized)
        let path = String(uri.split(separator: "?").first ?? "")
        let (operation, _) = try #require(Self.routes.operation(method.rawValue, path), "\(uri)")
        let status = String(response.status.code)
        let documented = operation.responses[status]
        #expect(documented != nil, "\(method) \(uri) answered \(status), not documented")
        let body = try H.value(response)
        if case .some(.some(let schema)) = documented {
          let problem = Self.routes.schemas.violation(of: schema, by: body, at: "the answer")
          #expect(problem == nil, "\(method) \(uri): \(problem ?? "")")
        }
        checked += 1
        return body
      }
      let at = simulation.configuration.end.date.addingTimeInterval(-43_200)
        .formatted(.iso8601)
      for customer in simulation.truth.customers {
        guard let token = customer.appAccountToken else { continue }
        for part in ["entitlements", "subscriptions", "consumables", "purchases", "revocations"] {
          _ = try await check(.get, "/v1/accounts/\(token)/\(part)")
          _ = try await check(.get, "/v1/accounts/\(token)/\(part)?at=\(at)")
        }
        _ = try await check(.get, "/v1/accounts/\(token)/events")
        _ = try await check(.get, "/v1/accounts/\(token)/offers")
        let entitlements = try await check(.get, "/v1/accounts/\(token)/entitlements")
        for entitlement in entitlements["entitlements"]?.array ?? [] {
          guard case .string(let name)? = entitlement["entitlement"] else { continue }
          _ = try await check(.get, "/v1/accounts/\(token)/entitlements/\(name)/explanation")
        }
        let subscriptions = try await check(.get, "/v1/accounts/\(token)/subscriptions")
        for subscription in subscriptions["subscriptions"]?.array ?? [] {
          guard case .string(let id)? = subscription["originalTransactionId"] else { continue }
          _ = try await check(.get, "/v1/seats/\(id)")
        }
      }
      let requests = try await check(.get, "/v1/consumption-requests?limit=1000")
      for request in requests["requests"]?.array ?? [] {
        guard case .string(let id)? = request["id"] else { continue }
        _ = try await check(.get, "/v1/consumption-requests/\(id)")
      }
      _ = try await check(.get, "/v1/changes?limit=1000")
      _ = try await check(.get, "/v1/changes/deliveries")
      let from = MetricsCalendar.dateText(simulation.configuration.start)
      let to = MetricsCalendar.dateText(simulation.configuration.end)
      let metrics = try await check(
        .get, "/v1/metrics?from=\(from)&to=\(to)&by=month&group=product,offer&cohorts=true")
      #expect((metrics["rows"]?.array?.count ?? 0) > 0)
      #expect((metrics["cohorts"]?.array?.count ?? 0) > 0)
      _ = try await check(.get, "/v1/metrics?at=\(at)&group=storefront,environment")
      _ = try await check(
        .get, "/v1/metrics?from=\(from)&to=\(to)&by=week&currency=EUR&rates=USD=0.92")
      _ = try await check(.get, "/v1/metrics/diff?from=\(from)&to=\(to)&by=month&before=\(from)")
      _ = try await check(.get, "/health")
      #expect(checked > 500)
    }
  }
}
