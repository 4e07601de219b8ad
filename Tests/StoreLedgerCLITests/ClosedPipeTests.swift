import Foundation
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// A reader that goes away (`storeledger … | head`, quitting `less`) ends a command quietly, as
/// it ends `cat`: exit 0 or SIGPIPE, never a trap with a backtrace.
@Suite struct ClosedPipeTests {
  /// How the process ended with its standard output's reader already gone.
  struct Ending {
    let reason: Process.TerminationReason
    let status: Int32
    let standardError: String

    var isQuiet: Bool {
      let ended =
        (reason == .exit && status != 132 && status != 134)
        || (reason == .uncaughtSignal && status == SIGPIPE)
      return ended && !standardError.contains("Fatal error")
        && !standardError.contains("Stack dump")
    }
  }

  static func intoAClosedPipe(_ arguments: [String]) throws -> Ending {
    let process = Process()
    process.executableURL = CommandLineRunner.executable
    process.arguments = arguments
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = FileHandle.nullDevice
    try output.fileHandleForReading.close()
    try process.run()
    try output.fileHandleForWriting.close()
    let errData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Ending(
      reason: process.terminationReason, status: process.terminationStatus,
      standardError: String(decoding: errData, as: UTF8.self))
  }

  static let subcommands = [
    "demo", "entitlements", "events", "explain", "ingest", "debit", "verify", "migrate", "fold",
    "serve", "simulate", "recover", "audit", "rebuild", "replay", "reconcile", "consumption",
    "changes", "order", "link", "webhook-check", "extend", "offers", "import-receipts",
    "app-transaction", "not-understood", "seats", "groups", "finish",
  ]

  @Test(arguments: subcommands)
  func everySubcommandsHelpEndsQuietly(subcommand: String) throws {
    let ending = try Self.intoAClosedPipe([subcommand, "--help"])
    #expect(
      ending.isQuiet, "\(subcommand): \(ending.reason) \(ending.status) \(ending.standardError)")
  }

  /// Output written by the CLI itself, with and without the networking libraries (which
  /// ignore SIGPIPE) running.
  @Test func answersWrittenIntoAClosedPipeEndQuietly() async throws {
    let scenario = SharedFixtures.root.deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("projections/scenarios/02-did-renew.json")
    let fold = try Self.intoAClosedPipe(["fold", scenario.path, "--json"])
    #expect(fold.isQuiet, "fold: \(fold.reason) \(fold.status) \(fold.standardError)")
    guard TestDatabase.shouldRun else { return }
    try await TestDatabase.withMigrated { database in
      let token = "00000000-0000-4000-8000-0000000000ff"
      for index in 0..<3 {
        let result = try CommandLineRunner.run([
          "link", token, "100\(index)", "--ledger-only", "--database-url",
          database.writerURL.description, "--bundle-id", "com.example.app",
          "--environments", "Sandbox",
        ])
        #expect(result.status == 0, "\(result.standardError)")
      }
      let events = try Self.intoAClosedPipe([
        "events", token, "--json", "--database-url", database.writerURL.description,
        "--bundle-id", "com.example.app", "--environments", "Sandbox",
      ])
      #expect(events.isQuiet, "events: \(events.reason) \(events.status) \(events.standardError)")
    }
  }
}
