import Foundation
import HTTPTypes
import Hummingbird
import StoreLedger
import StoreLedgerCore

/// The lists across accounts: `GET /v1/accounts` and `GET /v1/subscriptions/transitions`, as
/// JSON pages with a cursor, or as CSV of the whole list (`format=csv`). A query parameter a
/// list does not take is refused (`unknown_filter`), so a misspelt filter never widens a list.
struct ListsController: Sendable {
  let lists: AccountLists

  struct AccountsPage: Encodable {
    let accounts: [AccountItem]
    let total: Int
    let nextCursor: String?

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(accounts, forKey: .accounts)
      try container.encode(total, forKey: .total)
      try container.encode(nextCursor, forKey: .nextCursor)
    }

    enum CodingKeys: String, CodingKey { case accounts, total, nextCursor }
  }

  struct AccountItem: Encodable {
    let appAccountToken: String
    let changedAt: Int64
    let statuses: [Int32]
    let entitlements: [String]
    let products: [String]
    let storefronts: [String]
    let environments: [String]
    let nextExpiry: Int64?
    let viewMade: Bool

    init(_ row: AccountListRow) {
      appAccountToken = row.appAccountToken
      changedAt = row.changedAt.milliseconds
      statuses = row.statuses
      entitlements = row.entitlements
      products = row.products
      storefronts = row.storefronts
      environments = row.environments
      nextExpiry = row.nextExpiry?.milliseconds
      viewMade = row.viewMade
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(appAccountToken, forKey: .appAccountToken)
      try container.encode(changedAt, forKey: .changedAt)
      try container.encode(statuses, forKey: .statuses)
      try container.encode(entitlements, forKey: .entitlements)
      try container.encode(products, forKey: .products)
      try container.encode(storefronts, forKey: .storefronts)
      try container.encode(environments, forKey: .environments)
      try container.encode(nextExpiry, forKey: .nextExpiry)
      try container.encode(viewMade, forKey: .viewMade)
    }

    enum CodingKeys: String, CodingKey {
      case appAccountToken, changedAt, statuses, entitlements, products, storefronts
      case environments, nextExpiry, viewMade
    }
  }

  struct TransitionsPage: Encodable {
    let transitions: [TransitionItem]
    let total: Int
    let nextCursor: String?

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(transitions, forKey: .transitions)
      try container.encode(total, forKey: .total)
      try container.encode(nextCursor, forKey: .nextCursor)
    }

    enum CodingKeys: String, CodingKey { case transitions, total, nextCursor }
  }

  struct TransitionItem: Encodable {
    let ordinal: Int
    let appAccountToken: String
    let originalTransactionId: String
    let from: Int32?
    let to: Int32
    let effectiveAt: Int64
    let recordedAt: Int64
    let cause: String?

    init(_ row: StatusTransitionRow) {
      ordinal = row.ordinal
      appAccountToken = row.appAccountToken
      originalTransactionId = row.originalTransactionId
      from = row.from
      to = row.to
      effectiveAt = row.effectiveAt.milliseconds
      recordedAt = row.recordedAt.milliseconds
      cause = row.cause
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(ordinal, forKey: .ordinal)
      try container.encode(appAccountToken, forKey: .appAccountToken)
      try container.encode(originalTransactionId, forKey: .originalTransactionId)
      try container.encode(from, forKey: .from)
      try container.encode(to, forKey: .to)
      try container.encode(effectiveAt, forKey: .effectiveAt)
      try container.encode(recordedAt, forKey: .recordedAt)
      try container.encode(cause, forKey: .cause)
    }

    enum CodingKeys: String, CodingKey {
      case ordinal, appAccountToken, originalTransactionId, from, to, effectiveAt, recordedAt
      case cause
    }
  }

  static let accountParameters = [
    "status", "entitlement", "product", "storefront", "environment", "changedSince",
    "expiresFrom", "expiresBefore", "search", "limit", "cursor", "format",
  ]
  static let transitionParameters = ["status", "from", "before", "limit", "cursor", "format"]

  func register(on group: RouterGroup<LedgerRequestContext>) {
    group.get("/v1/accounts") { request, _ in
      try await accounts(request)
    }
    group.get("/v1/subscriptions/transitions") { request, _ in
      try await transitions(request)
    }
  }

  func accounts(_ request: Request) async throws -> Response {
    try Self.refuseUnknown(request, known: Self.accountParameters)
    let filter = try Self.accountFilter(request)
    if try Self.wantsCSV(request) {
      return try await Self.csv(
        name: "accounts", header: ListCSV.accountsHeader,
        first: try await lists.accounts(
          filter, limit: AccountLists.pageLimit, cursor: request.uri.queryParameters.get("cursor")
        )
      ) { cursor in
        try await lists.accounts(filter, limit: AccountLists.pageLimit, cursor: cursor)
      } fields: {
        ListCSV.fields($0)
      }
    }
    let page = try await lists.accounts(
      filter, limit: try Self.limit(request), cursor: request.uri.queryParameters.get("cursor"))
    return try JSONBody.response(
      AccountsPage(
        accounts: page.rows.map(AccountItem.init), total: page.total,
        nextCursor: page.nextCursor))
  }

  func transitions(_ request: Request) async throws -> Response {
    try Self.refuseUnknown(request, known: Self.transitionParameters)
    let filter = try Self.transitionFilter(request)
    if try Self.wantsCSV(request) {
      return try await Self.csv(
        name: "transitions", header: ListCSV.transitionsHeader,
        first: try await lists.statusTransitions(
          filter, limit: AccountLists.pageLimit,
          cursor: request.uri.queryParameters.get("cursor"))
      ) { cursor in
        try await lists.statusTransitions(filter, limit: AccountLists.pageLimit, cursor: cursor)
      } fields: {
        ListCSV.fields($0)
      }
    }
    let page = try await lists.statusTransitions(
      filter, limit: try Self.limit(request), cursor: request.uri.queryParameters.get("cursor"))
    return try JSONBody.response(
      TransitionsPage(
        transitions: page.rows.map(TransitionItem.init), total: page.total,
        nextCursor: page.nextCursor))
  }

  static func refuseUnknown(_ request: Request, known: [String]) throws {
    for (name, _) in request.uri.queryParameters where !known.contains(String(name)) {
      throw APIError(
        .badRequest, "unknown_filter",
        "this list has no filter or parameter `\(name)`: it takes \(known.map { "`\($0)`" }.joined(separator: ", "))"
      )
    }
  }

  static func accountFilter(_ request: Request) throws -> AccountListFilter {
    let query = request.uri.queryParameters
    var filter = AccountListFilter()
    if let status = query.get("status") { filter.status = try AccountLists.status(named: status) }
    filter.entitlement = try text(query.get("entitlement"), "entitlement")
    filter.productId = try text(query.get("product"), "product")
    filter.storefront = try text(query.get("storefront"), "storefront")?.uppercased()
    filter.environment = try text(query.get("environment"), "environment")
    filter.changedSince = try AccountController.time(request, "changedSince").map(Timestamp.init)
    filter.expiresFrom = try AccountController.time(request, "expiresFrom").map(Timestamp.init)
    filter.expiresBefore = try AccountController.time(request, "expiresBefore").map(Timestamp.init)
    if let search = query.get("search") {
      // A search no token can start with (not hexadecimal) matches no account.
      filter.tokenPrefix = AppAccountToken.prefixFromAnySpelling(search) ?? "not a token"
    }
    return filter
  }

  static func transitionFilter(_ request: Request) throws -> StatusTransitionFilter {
    guard let status = request.uri.queryParameters.get("status") else {
      throw APIError.invalidRequest(
        "`status` is required: the status subscriptions entered (3 or billing_retry, 4 or grace_period, 2 or expired, …)"
      )
    }
    return StatusTransitionFilter(
      status: try AccountLists.status(named: status),
      from: try AccountController.time(request, "from").map(Timestamp.init)
        ?? Timestamp(milliseconds: 0),
      before: try AccountController.time(request, "before").map(Timestamp.init)
        ?? Timestamp(milliseconds: Int64.max))
  }

  static func text(_ value: String?, _ name: String) throws -> String? {
    guard let value else { return nil }
    let trimmed = value.trimmingCharacters(in: .whitespaces)
    // Counted as the document's maxLength counts: in Unicode code points.
    guard !trimmed.isEmpty, trimmed.unicodeScalars.count <= 200 else {
      throw APIError.invalidRequest("`\(name)` is 1 to 200 characters")
    }
    // A control character (a NUL byte among them) names nothing a list holds.
    guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else {
      throw APIError.invalidRequest("`\(name)` holds a control character: remove it")
    }
    return trimmed
  }

  static func limit(_ request: Request) throws -> Int {
    guard let text = request.uri.queryParameters.get("limit") else { return 50 }
    guard let limit = Int(text), (1...AccountLists.pageLimit).contains(limit) else {
      throw APIError.invalidRequest("`limit` is a page's rows, 1 to \(AccountLists.pageLimit)")
    }
    return limit
  }

  static func wantsCSV(_ request: Request) throws -> Bool {
    switch request.uri.queryParameters.get("format") {
    case nil: return request.headers[.accept]?.contains("text/csv") ?? false
    case "json": return false
    case "csv": return true
    case let other?:
      throw APIError.invalidRequest("`format` is json or csv, not “\(other)”")
    }
  }

  /// The whole list from `first` on, as CSV written page by page while it is read. The first
  /// page is read before answering, so a bad filter or cursor is an error, not an empty file.
  static func csv<Row: Sendable>(
    name: String, header: [String], first: ListPage<Row>,
    next: @escaping @Sendable (String) async throws -> ListPage<Row>,
    fields: @escaping @Sendable (Row) -> [String]
  ) async throws -> Response {
    let body = ResponseBody { writer in
      var text = ListCSV.line(header)
      var page = first
      while true {
        for row in page.rows { text += ListCSV.line(fields(row)) }
        try await writer.write(ByteBuffer(string: text))
        text = ""
        guard let cursor = page.nextCursor else { break }
        page = try await next(cursor)
      }
      try await writer.finish(nil)
    }
    return Response(
      status: .ok,
      headers: [
        .contentType: "text/csv; charset=utf-8; header=present",
        .contentDisposition: "attachment; filename=\"storeledger-\(name).csv\"",
        HTTPField.Name("X-Total-Count")!: String(first.total),
      ], body: body)
  }
}
