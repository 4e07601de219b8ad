import Foundation
import HTTPTypes
import Hummingbird
import StoreLedger
import StoreLedgerCore

/// Finding a customer by what support has (a token in any spelling or its start, a transaction
/// id or its start, an appTransactionId, a looked-up order id, the backend's own user id), and
/// the backend's alias of an account.
struct SearchController: Sendable {
  let support: SupportQueries
  let aliases: AccountAliases

  struct AliasBody: Decodable {
    let alias: String
  }

  struct Alias: Encodable {
    let appAccountToken: String
    let alias: String?

    private enum CodingKeys: String, CodingKey { case appAccountToken, alias }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(appAccountToken, forKey: .appAccountToken)
      try container.encode(alias, forKey: .alias)
    }
  }

  struct Match: Encodable {
    let appAccountToken: String
    /// How it matched, each way once.
    let matched: [String]
  }

  struct Matches: Encodable {
    let query: String
    let matches: [Match]
    /// False when the search stopped at its limit: more accounts may match.
    let complete: Bool
  }

  func register(on group: RouterGroup<LedgerRequestContext>) {
    group.get("/v1/search") { request, _ in
      let query = request.uri.queryParameters["q"].map(String.init) ?? ""
      let found = try await support.findAccounts(matching: query)
      let grouped = Dictionary(grouping: found, by: \.appAccountToken)
        .map { Match(appAccountToken: $0.key, matched: $0.value.map(\.matched).sorted()) }
        .sorted { $0.appAccountToken < $1.appAccountToken }
      return try JSONBody.response(
        Matches(
          query: query.trimmingCharacters(in: .whitespacesAndNewlines), matches: grouped,
          complete: found.count < AccountSearchMatch.limit))
    }
    group.get("/v1/accounts/{token}/alias") { _, context in
      let token = try AccountController.token(context)
      return try JSONBody.response(
        Alias(
          appAccountToken: token, alias: try await aliases.alias(of: token)
        ))
    }
    group.put("/v1/accounts/{token}/alias") { request, context in
      let token = try AccountController.token(context)
      let body = try await JSONBody.decode(
        AliasBody.self, from: request, limit: 4096, what: #"an alias ({"alias": "your user id"})"#)
      let alias = try await aliases.set(
        body.alias, for: token, by: GrantsController.who())
      return try JSONBody.response(Alias(appAccountToken: token, alias: alias))
    }
    group.delete("/v1/accounts/{token}/alias") { _, context in
      let token = try AccountController.token(context)
      _ = try await aliases.remove(for: token)
      return try JSONBody.response(Alias(appAccountToken: token, alias: nil))
    }
  }
}
