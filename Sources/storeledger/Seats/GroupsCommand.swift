import AppStoreServerAPI
import ArgumentParser
import Foundation
import StoreLedger

/// `storeledger groups of|members`: Get Customer Groups and Get Group Members.
struct GroupsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "groups",
    abstract: "Apple's customer groups and their members (App Store Server API 1.22).",
    discussion: """
      For groups whose seats Apple manages (Apple-hosted invitations, Volume Purchasing). A \
      member's access comes from their own transaction; roles are informational. Sandbox \
      only for now.
      """,
    subcommands: [GroupsOfCommand.self, GroupsMembersCommand.self])
}

struct GroupsOfCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "of", abstract: "The groups of the customer of a transaction.",
    discussion: """
      Example:
        storeledger groups of 2000000123456789 --api-url sandbox \\
          --key-id … --p8 key.p8 …
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Argument(help: "Any transaction id of the customer.") var transactionId: String

  func run() async throws {
    let (api, id) = (api, transactionId)
    let groups = try await ledger.withLedger("storeledger.groups") { ledger, logger in
      let (client, _) = try api.client(for: ledger, options: self.ledger, logger: logger)
      do {
        return try await client.customerGroups(id)
      } catch {
        throw CommandFailure(AppleActions.describe(error, doing: "Get Customer Groups"))
      }
    }
    say(try CommandJSON.string(groups))
  }
}

struct GroupsMembersCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "members", abstract: "Every member of a group (all pages).",
    discussion: """
      Example:
        storeledger groups members 4f1e… --api-url sandbox \\
          --key-id … --p8 key.p8 …
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Argument(help: "The groupId (from `groups of`).") var groupId: String

  func run() async throws {
    let (api, id) = (api, groupId)
    let members = try await ledger.withLedger("storeledger.groups") { ledger, logger in
      let (client, _) = try api.client(for: ledger, options: self.ledger, logger: logger)
      do {
        return try await client.groupMembers(id)
      } catch {
        throw CommandFailure(AppleActions.describe(error, doing: "Get Group Members"))
      }
    }
    say(try CommandJSON.string(members))
  }
}
