import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

/// `storeledger accounts find QUERY`: the customers what support has names.
struct AccountsFindCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "find",
    abstract: "Find customers by a token or its start, a transaction id or its start, an "
      + "appTransactionId, a looked-up order id, or your own user id (alias).")

  @Argument(help: "What support has.") var query: String
  @Flag(help: "Print JSON.") var json = false
  @OptionGroup var ledger: LedgerOptions

  func run() async throws {
    let (query, json) = (query, json)
    try await ledger.withLedger("storeledger.accounts") { ledger, _ in
      let found: [SupportQueries.AccountMatch]
      do {
        found = try await SupportQueries(ledger: ledger).findAccounts(matching: query)
      } catch {
        if let refusal = error as? LedgerError, refusal.code == .invalidRequest {
          throw ValidationError(refusal.message)
        }
        throw error
      }
      let grouped = Dictionary(grouping: found, by: \.appAccountToken).sorted { $0.key < $1.key }
      if json {
        struct Match: Encodable {
          let appAccountToken: String
          let matched: [String]
        }
        say(
          try CommandJSON.string(
            grouped.map { Match(appAccountToken: $0.key, matched: $0.value.map(\.matched)) }))
        return
      }
      guard !grouped.isEmpty else {
        say("no customer matches \(query)")
        throw ExitCode(1)
      }
      for (token, ways) in grouped {
        say("\(token)  (by \(ways.map(\.matched).joined(separator: ", ")))")
      }
      if found.count >= AccountSearchMatch.limit {
        say(
          "at least \(grouped.count) accounts match: the search stopped at "
            + "\(AccountSearchMatch.limit) matches; search by a longer part of the id")
      }
    }
  }
}

/// `storeledger accounts alias TOKEN [ALIAS] [--remove]`: your own id for an account.
struct AccountsAliasCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "alias",
    abstract: "Show, set or remove your own id for an account (found by `accounts find`).")

  @Argument(help: "The account's appAccountToken.") var token: String
  @Argument(help: "Your id for it (omit to show the alias).") var alias: String?
  @Flag(help: "Remove the account's alias.") var remove = false
  @Option(help: "Who sets it (default: cli:$USER).") var by: String?
  @OptionGroup var ledger: LedgerOptions

  func validate() throws {
    if remove && alias != nil { throw ValidationError("give an alias or --remove, not both") }
  }

  func run() async throws {
    let (token, alias, remove) = (token, alias, remove)
    let who = GrantsCommand.who(by)
    try await ledger.withLedger("storeledger.accounts") { ledger, _ in
      let aliases = AccountAliases(ledger: ledger)
      do {
        if remove {
          let removed = try await aliases.remove(for: token)
          say(removed.map { "removed alias \($0)" } ?? "the account had no alias")
        } else if let alias {
          say("alias \(try await aliases.set(alias, for: token, by: who))")
        } else {
          say(try await aliases.alias(of: token) ?? "no alias")
        }
      } catch {
        if let refusal = error as? LedgerError, refusal.code == .invalidRequest {
          throw ValidationError(refusal.message)
        }
        throw error
      }
    }
  }
}
