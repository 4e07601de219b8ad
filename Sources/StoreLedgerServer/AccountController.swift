import Foundation
import Hummingbird
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

/// The reads of one account: entitlements, subscriptions, balances, history, explanations.
/// Each folds the account's streams as they are now, so it reflects every ingest that has
/// returned.
struct AccountController: Sendable {
  let ledger: Ledger

  struct Events: Encodable {
    let appAccountToken: String
    let events: [StoredEvent]
  }

  /// `{"appAccountToken", "asOf", "<name>": [...]}`: one kind of the account's items.
  struct Items<Item: Encodable>: Encodable {
    let name: String
    let appAccountToken: String
    let asOf: Timestamp
    let items: [Item]

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: Key.self)
      try container.encode(appAccountToken, forKey: Key(stringValue: "appAccountToken"))
      try container.encode(asOf, forKey: Key(stringValue: "asOf"))
      try container.encode(items, forKey: Key(stringValue: name))
    }

    struct Key: CodingKey {
      var stringValue: String
      var intValue: Int? { nil }
      init(stringValue: String) { self.stringValue = stringValue }
      init?(intValue: Int) { nil }
    }
  }

  func register(on group: RouterGroup<LedgerRequestContext>) {
    for part in AccountViewSlice.Part.allCases {
      group.get("/v1/accounts/{token}/\(part.rawValue)") { request, context in
        let token = try Self.token(context)
        let time = try Self.time(request)
        let consistency = try Self.consistency(request)
        let json =
          if let environment = try Self.environment(request) {
            try await ledger.summaryJSON(
              part, for: token, at: time, environment: environment, consistency: consistency)
          } else {
            try await ledger.summaryJSON(part, for: token, at: time, consistency: consistency)
          }
        return Self.response(part, of: token, at: time, json: json)
      }
    }
    registerItems("revocations", on: group) { ledger, token, time, environment, consistency in
      try await ledger.revocations(
        for: token, at: time, environment: environment, consistency: consistency)
    }
    registerItems("purchases", on: group) { ledger, token, time, environment, consistency in
      try await ledger.purchases(
        for: token, at: time, environment: environment, consistency: consistency)
    }
    group.get("/v1/accounts/{token}/events") { request, context in
      let token = try Self.token(context)
      let environment = try Self.environment(request)?.rawValue
      let events = try await ledger.events(
        for: token, consistency: try Self.consistency(request)
      ).map(StoredEvent.init).filter {
        environment == nil || $0.environment == nil || $0.environment == environment
      }
      return try JSONBody.response(Events(appAccountToken: token, events: events))
    }
    group.get("/v1/accounts/{token}/entitlements/{entitlement}/explanation") { request, context in
      let token = try Self.token(context)
      let entitlement = try context.parameters.require("entitlement")
      let explanation = try await ledger.explain(
        entitlement: entitlement, for: token, at: try Self.time(request),
        knownAt: try Self.time(request, "knownAt"), consistency: try Self.consistency(request))
      if explanation.answer == "never held",
        !ledger.configuration.catalog.entitlementNames.contains(entitlement)
      {
        throw APIError(
          .notFound, "not_found",
          "the account never held this entitlement and the catalog names no such entitlement")
      }
      return try JSONBody.response(explanation)
    }
  }

  /// `GET /v1/accounts/{token}/<name>[?at=][&environment=]`: items the account's view lists.
  private func registerItems<Item: Encodable & Sendable>(
    _ name: String, on group: RouterGroup<LedgerRequestContext>,
    _ read:
      @escaping @Sendable (Ledger, String, Date, AppStoreEnvironment?, ReadConsistency)
      async throws -> [Item]
  ) {
    group.get("/v1/accounts/{token}/\(name)") { [ledger] request, context in
      let token = try Self.token(context)
      let time = try Self.time(request)
      let items = try await read(
        ledger, token, time, try Self.environment(request), try Self.consistency(request))
      return try JSONBody.response(
        Items(name: name, appAccountToken: token, asOf: Timestamp(time), items: items))
    }
  }

  /// `{"appAccountToken": …, "asOf": …, "<part>": [...]}` around the part's JSON as it was
  /// read (the members in sorted order, as every other answer has them).
  static func response(
    _ part: AccountViewSlice.Part, of token: String, at time: Date, json: ByteBuffer
  ) -> Response {
    var header = JSONTextWriter(capacity: 96)
    header.object { json in
      json.member("appAccountToken", token)
      json.member("asOf", Timestamp(time))
    }
    var body = ByteBuffer()
    body.reserveCapacity(header.bytes.count + part.rawValue.count + json.readableBytes + 8)
    body.writeBytes(header.bytes.dropLast())
    body.writeString(",\"\(part.rawValue)\":")
    body.writeImmutableBuffer(json)
    body.writeString("}")
    return Response(
      status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
      body: .init(byteBuffer: body))
  }

  /// `?at=` as ISO 8601 (with or without fractional seconds); now when absent.
  /// The path's account token in canonical (lower-case) form; refused unless it is a UUID.
  static func token(_ context: LedgerRequestContext) throws -> String {
    let raw = try context.parameters.require("token")
    guard let token = AppAccountToken.canonical(raw) else {
      throw APIError.invalidRequest(
        "an appAccountToken is a UUID, such as \(AppAccountToken.example) (any case)")
    }
    return token
  }

  /// `?environment=` (Production, Sandbox, Xcode or LocalTesting): the answer from that
  /// environment's events only; nil when absent.
  static func environment(_ request: Request) throws -> AppStoreEnvironment? {
    guard let text = request.uri.queryParameters.get("environment") else { return nil }
    let environment = AppStoreEnvironment(rawValue: text)
    guard AppStoreEnvironment.knownValues.contains(environment) else {
      throw APIError.invalidRequest(
        "environment is Production, Sandbox, Xcode or LocalTesting")
    }
    return environment
  }

  /// `?consistency=exact`: the primary answers (everything committed anywhere); by default
  /// (`readYourWrites`) a read replica may, once it holds this server's writes to the account.
  static func consistency(_ request: Request) throws -> ReadConsistency {
    guard let text = request.uri.queryParameters.get("consistency") else { return .readYourWrites }
    guard let consistency = ReadConsistency(rawValue: text) else {
      throw APIError.invalidRequest("consistency is readYourWrites or exact")
    }
    return consistency
  }

  static func time(_ request: Request) throws -> Date {
    try time(request, "at") ?? Date()
  }

  /// The query parameter `name` as a date-time, nil when absent.
  static func time(_ request: Request, _ name: String) throws -> Date? {
    guard let text = request.uri.queryParameters.get(name) else { return nil }
    guard let time = InstantText.parse(text) else {
      throw APIError.invalidRequest(InstantText.problem("`\(name)`", text))
    }
    return time.date
  }
}
