import ArgumentParser
import Foundation
import StoreLedger

/// Entry point. Usage errors exit with 2 (ArgumentParser's default is 64), failures of the
/// work itself with 1, success with 0.
@main
enum StoreLedgerMain {
  static func main() async {
    do {
      var command = try StoreLedgerCommand.parseAsRoot()
      if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch {
      if StoreLedgerCommand.exitCode(for: error) == .validationFailure {
        StandardStreams.error(StoreLedgerCommand.fullMessage(for: error) + "\n")
        exit(2)
      }
      StoreLedgerCommand.exit(withError: error)
    }
  }
}

struct StoreLedgerCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "storeledger",
    abstract: "Event-sourced entitlements for Apple in-app purchases.",
    discussion: """
      Exit codes: 0 success, 1 the work failed (for example data that does not verify), \
      2 usage error.
      """,
    version: StoreLedgerVersion.current,
    subcommands: [
      DemoCommand.self, EntitlementsCommand.self, EventsCommand.self, ExplainCommand.self,
      IngestCommand.self, DebitCommand.self, VerifyCommand.self, MigrateCommand.self,
      FoldCommand.self,
      ServeCommand.self,
      SimulateCommand.self, RecoverCommand.self, AuditCommand.self,
      RebuildCommand.self, ReplayCommand.self, ReconcileCommand.self, ConsumptionCommand.self,
      ChangesCommand.self, AccountsCommand.self, GrantsCommand.self, RelaysCommand.self,
      OrderCommand.self,
      LinkCommand.self, WebhookCheckCommand.self, ExtendCommand.self,
      OffersCommand.self, ImportReceiptsCommand.self, AppTransactionCommand.self,
      NotUnderstoodCommand.self, SeatsCommand.self, GroupsCommand.self, FinishCommand.self,
      MetricsCommand.self, ExportCommand.self, CheckpointCommand.self, KeysCommand.self,
      ConsentCommand.self, EraseCommand.self,
    ])
}
