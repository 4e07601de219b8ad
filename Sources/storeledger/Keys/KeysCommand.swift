import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

/// `storeledger keys`: the app's named API keys, with scopes.
struct KeysCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keys",
    abstract: "Make, list and revoke named API keys with scopes (read, write, console, admin).",
    discussion: """
      A named key lives in the app's database (only the SHA-256 of its secret is kept) and \
      holds the scopes it was made with: a dashboard gets read, support gets read,console, a \
      backend read,write. The keys given to serve by --api-keys hold every scope. A revoked \
      key stops working within a second.

      Examples:
        storeledger keys create --name support --scopes read,console
        storeledger keys list
        storeledger keys revoke support
      """,
    subcommands: [KeysCreateCommand.self, KeysListCommand.self, KeysRevokeCommand.self])
}

struct KeysCreateCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "create", abstract: "Make a key; it is printed once and never again.")

  @Option(help: "The key's name (letters, digits, '.', '_', '-').") var name: String
  @Option(help: "Comma list: read, write, console, admin.") var scopes: String
  @OptionGroup var ledger: LedgerOptions

  func validate() throws {
    guard APIKeyRecord.isValidName(name) else {
      throw ValidationError("--name is 1 to 64 letters, digits, '.', '_' or '-'")
    }
    guard APIKeyScope.parse(scopes) != nil else {
      throw ValidationError("--scopes is a comma list of read, write, console, admin")
    }
  }

  func run() async throws {
    let scopes = APIKeyScope.parse(scopes) ?? []
    let made = try await ledger.withLedger("storeledger.keys") { ledger, _ in
      do {
        return try await APIKeys(ledger: ledger).create(name: name, scopes: scopes)
      } catch let error as LedgerError where error.code == .conflict {
        throw ValidationError(error.message)
      }
    }
    say(made.key)
    StandardStreams.error(
      "key \(name) (\(scopes.sorted().map(\.rawValue).joined(separator: ","))) made: keep it now, "
        + "it is not shown again\n")
  }
}

struct KeysListCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "Every named key: name, id, scopes, made, revoked.")

  @OptionGroup var ledger: LedgerOptions
  @Flag(help: "Print JSON lines.") var json = false

  func run() async throws {
    let keys = try await ledger.withLedger("storeledger.keys") { ledger, _ in
      try await APIKeys(ledger: ledger).list()
    }
    let format = ISO8601DateFormatter()
    if json {
      for key in keys {
        var line: [String: JSONValue] = [
          "name": .string(key.name), "id": .string(key.id),
          "scopes": .array(key.scopes.sorted().map { .string($0.rawValue) }),
          "createdAt": .string(format.string(from: key.createdAt)),
        ]
        if let revoked = key.revokedAt { line["revokedAt"] = .string(format.string(from: revoked)) }
        say(try CommandJSON.string(line))
      }
      return
    }
    var table = TextTable(
      title: "named keys", header: ["name", "id", "scopes", "made", "revoked"])
    table.rows = keys.map { key in
      [
        key.name, key.id, key.scopes.sorted().map(\.rawValue).joined(separator: ","),
        format.string(from: key.createdAt), key.revokedAt.map(format.string(from:)) ?? "",
      ]
    }
    say(String(table.render().dropLast()))
  }
}

struct KeysRevokeCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "revoke", abstract: "Revoke the key in use with this name.")

  @Argument(help: "The key's name.") var name: String
  @OptionGroup var ledger: LedgerOptions

  func run() async throws {
    try await ledger.withLedger("storeledger.keys") { ledger, _ in
      do {
        try await APIKeys(ledger: ledger).revoke(name: name)
      } catch let error as LedgerError where error.code == .notFound {
        throw ValidationError(error.message)
      }
    }
    say("revoked \(name)")
  }
}
