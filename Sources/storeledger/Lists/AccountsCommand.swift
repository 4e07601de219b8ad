import ArgumentParser

/// `storeledger accounts list|transitions`: the lists across accounts.
struct AccountsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "accounts",
    abstract:
      "List accounts by what they hold or subscriptions entering a status; find a customer.",
    subcommands: [
      AccountsListCommand.self, AccountsTransitionsCommand.self, AccountsFindCommand.self,
      AccountsAliasCommand.self,
    ])
}

/// How a list is printed.
enum ListFormat: String, ExpressibleByArgument, CaseIterable {
  case text, json, csv
}
