import AppStoreVerification
import ArgumentParser
import Foundation
import StoreLedger

struct IngestCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ingest",
    abstract: "Verify and append signed App Store data: a notification or a signed transaction.",
    discussion: """
      Reads FILE (or - for standard input): the webhook's JSON body {"signedPayload": "…"}, a \
      notification's signedPayload, a signed transaction (with --account when it carries no \
      appAccountToken), or a signed renewal info. Nothing is stored unless the signature, the \
      chain to the trusted roots, the bundle id and the environment verify. Ingesting the same \
      data again stores nothing new.

      Examples:
        storeledger ingest notification.json --database-url postgres://…
        pbpaste | storeledger ingest - --account 9f1c2b7e-… --json …
      """)

  @Argument(help: "A file with the signed data, or - for standard input.") var file: String
  @Option(help: "For a signed transaction: the account it was bought for.") var account: String?
  @OptionGroup var ledger: LedgerOptions
  @Flag(help: "Print the result as JSON.") var json = false

  struct Output: Encodable {
    var stored: Bool
    var streamId: String
    var streamVersion: Int64
    var idempotencyKey: String
    var notificationType: String?
    /// A verified notification naming no app: kept as unrouted evidence.
    var unrouted: Bool?
    /// False for a notification this release stores without understanding it.
    var understood: Bool?
    var balance: Int64?

    init(_ ingested: IngestReceipt, balance: Int64? = nil) {
      unrouted = ingested.notificationType == nil ? nil : ingested.unrouted
      understood = ingested.notificationType == nil ? nil : ingested.understood
      stored = !ingested.wasDuplicate
      streamId = ingested.streamId
      streamVersion = ingested.streamVersion
      idempotencyKey = ingested.idempotencyKey
      notificationType = ingested.notificationType
      self.balance = balance
    }
  }

  func run() async throws {
    let signed = try Self.signedData(try InputReader.read(file))
    let kind: SignedDataKind
    do { kind = try SignedDataKind.of(signed) } catch {
      throw CommandFailure(
        "the input is not signed App Store data (\(error.message)); pass a notification's "
          + "signedPayload, the webhook body, or a signed transaction")
    }
    let account = account
    let ingested = try await ledger.withLedger("storeledger.ingest") { ledger, _ in
      switch kind {
      case .notification: try await ledger.ingest(notification: signed, source: "cli")
      case .transaction:
        try await ledger.ingest(signedTransaction: signed, appAccountToken: account, source: "cli")
      case .renewalInfo: try await ledger.ingest(signedRenewalInfo: signed, source: "cli")
      default:
        throw CommandFailure(
          "\(kind.rawValue) data is verified by `storeledger verify`, not stored")
      }
    }
    if json {
      say(try CommandJSON.string(Output(ingested)))
    } else {
      let what = ingested.notificationType.map { "notification \($0)" } ?? kind.rawValue
      let note =
        ingested.unrouted
        ? " (names no app this release can read: kept as unrouted evidence, grants nothing; "
          + "see `storeledger not-understood`)"
        : ingested.understood
          ? "" : " (not understood by this release: stored, changes nothing)"
      say(
        (ingested.wasDuplicate ? "already stored: " : "stored: ")
          + "\(what) in \(ingested.streamId) v\(ingested.streamVersion)\(note)")
    }
  }

  /// The JWS itself, also when wrapped in the webhook's JSON body.
  static func signedData(_ text: String) throws -> String {
    guard text.hasPrefix("{") else { return text }
    guard
      let body = try? JSONDecoder().decode([String: String].self, from: Data(text.utf8)),
      let payload = body["signedPayload"]
    else {
      throw CommandFailure("the JSON has no signedPayload string; pass the webhook's body as sent")
    }
    return payload
  }
}
