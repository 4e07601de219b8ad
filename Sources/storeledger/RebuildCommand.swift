import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

struct RebuildCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "rebuild",
    abstract:
      "Rebuild the account views (and the revenue analytics) from the log.",
    discussion: """
      Projects every account from the log into a fresh table while the live one keeps \
      answering, then makes it live in one transaction; then makes the revenue analytics \
      (storeledger_analytics) again from every purchase chain (--analytics: those only). The replaced version stays as \
      storeledger.account_views_v<N> for comparison until you drop it. Use it after a \
      restore, a change of catalog, or when `storeledger audit` finds a view wrong.

      Examples:
        storeledger rebuild \\
          --database-url postgres://storeledger_writer@127.0.0.1/app
        storeledger rebuild --list --database-url …
        storeledger rebuild --compare 1 \\
          --database-url …   # accounts whose view changed
        storeledger rebuild --drop 1 --database-url …
        storeledger rebuild --begin …                  # prints V, say 3
        storeledger rebuild --shard 0/2 --into 3 …     # on one machine
        storeledger rebuild --shard 1/2 --into 3 …     # on another
        storeledger rebuild --switch 3 …
      """)

  @OptionGroup var ledger: LedgerOptions
  @Flag(help: "List the versions of the account views table instead.") var list = false
  @Flag(help: "Rebuild only the revenue analytics (storeledger_analytics).") var analytics = false
  @Option(help: "List the accounts whose view differs between the live table and version N.")
  var compare: Int?
  @Option(help: "Drop retired version N's table.") var drop: Int?
  @Flag(help: "Begin a rebuild that several processes fill (--shard K/N --into V); prints V.")
  var begin = false
  @Option(help: "With --into: project only share K of N of the accounts.") var shard: String?
  @Option(help: "With --shard: the version --begin printed.") var into: Int?
  @Option(name: .customLong("switch"), help: "Make version V live once every share is filled.")
  var switchTo: Int?
  @Option(help: "Accounts decoded, folded and stored per batch.") var pageSize = 200
  @Flag(help: "Print the result as JSON.") var json = false

  func validate() throws {
    let modes = [
      list, compare != nil, drop != nil, begin, into != nil, switchTo != nil, analytics,
    ]
    if modes.filter({ $0 }).count > 1 {
      throw ValidationError(
        "give at most one of --list, --compare N, --drop N, --begin, --into V, --switch V, "
          + "--analytics")
    }
    if (shard == nil) != (into == nil) {
      throw ValidationError("--shard K/N and --into V go together")
    }
    if pageSize < 1 { throw ValidationError("--page-size must be at least 1") }
  }

  func run() async throws {
    if begin || into != nil || switchTo != nil {
      try await inShares()
      return
    }
    let (list, compare, drop, json, pageSize) = (list, compare, drop, json, pageSize)
    let analytics = analytics
    try await ledger.withLedger("storeledger.rebuild") { ledger, logger in
      if analytics {
        let events = try await RevenueProjector(ledger: ledger, logger: logger).rebuild()
        say(
          json
            ? #"{"revenueAnalyticsEvents":\#(events)}"#
            : "revenue analytics made again from \(events.grouped) events")
      } else if list {
        say(
          try Self.output(
            try await LedgerMaintenance(ledger: ledger).accountViewsVersions(), json: json))
      } else if let compare {
        say(
          try Self.output(
            try await LedgerMaintenance(ledger: ledger).accountViewsDifferences(from: compare),
            json: json))
      } else if let drop {
        try await LedgerMaintenance(ledger: ledger).dropAccountViewsVersion(drop)
        say(json ? #"{"dropped":\#(drop)}"# : "account views version \(drop) dropped")
      } else {
        let bar = ProgressBar("rebuilding", enabled: !json)
        let result = try await LedgerMaintenance(ledger: ledger).rebuildAccountViews(
          pageSize: pageSize
        ) { progress in
          bar.update(
            progress.accounts, of: progress.totalAccounts, "accounts, \(progress.events) events")
        }
        bar.finish()
        let events = try await RevenueProjector(ledger: ledger, logger: logger).rebuild()
        say(
          json
            ? try CommandJSON.string(result)
            : Self.text(result) + "; revenue analytics made again from \(events.grouped) events")
      }
    }
  }

  /// A rebuild split across processes: begin, each share, switch.
  private func inShares() async throws {
    let share: WorkShard?
    do { share = try shard.map(WorkShard.init) } catch { throw ValidationError(error.message) }
    let (begin, into, switchTo, json, pageSize) = (begin, into, switchTo, json, pageSize)
    try await ledger.withLedger("storeledger.rebuild") { ledger, _ in
      if begin {
        let version = try await LedgerMaintenance(ledger: ledger).beginAccountViewsRebuild()
        say(json ? #"{"version":\#(version)}"# : "\(version)")
      } else if let into, let share {
        let (accounts, events) = try await LedgerMaintenance(ledger: ledger).fillAccountViews(
          version: into, shard: share, pageSize: pageSize)
        say(
          json
            ? #"{"version":\#(into),"shard":"\#(share)","accounts":\#(accounts),"events":\#(events)}"#
            : "shard \(share) of version \(into): \(accounts.grouped) accounts, "
              + "\(events.grouped) events")
      } else if let switchTo {
        let again = try await LedgerMaintenance(ledger: ledger).switchAccountViews(to: switchTo)
        say(
          json
            ? #"{"version":\#(switchTo),"projectedAfterSwitch":\#(again)}"#
            : "account views version \(switchTo) is live; \(again) accounts projected again")
      }
    }
  }

  static func text(_ result: AccountViewsRebuild) -> String {
    let rate = result.seconds > 0 ? Int(Double(result.events) / result.seconds) : 0
    let kept = result.replacedVersion.map {
      " (version \($0) kept as storeledger.account_views_v\($0))"
    }
    return "account views version \(result.version) is live\(kept ?? ""): "
      + "\(result.accounts.grouped) accounts, \(result.events.grouped) events in "
      + String(format: "%.1f s (%@ events/s); ", result.seconds, rate.grouped)
      + "\(result.projectedAfterSwitch) appended to during the rebuild, projected again"
      + (result.unrouted.routed > 0
        ? "; \(result.unrouted.routed) unrouted notifications routed first" : "")
  }

  static func output(_ versions: [AccountViewsVersion], json: Bool) throws -> String {
    if json { return try CommandJSON.string(versions) }
    var table = TextTable(
      title: "account views versions",
      header: ["version", "state", "accounts", "created", "switched"])
    let format = ISO8601DateFormatter()
    for version in versions {
      table.rows.append([
        "\(version.version)", version.state, version.accounts.map(\.grouped) ?? "-",
        format.string(from: version.createdAt), version.switchedAt.map(format.string) ?? "-",
      ])
    }
    return table.render().trimmingCharacters(in: .newlines)
  }

  static func output(_ differences: [AccountViewDifference], json: Bool) throws -> String {
    if json { return try CommandJSON.string(differences) }
    guard !differences.isEmpty else { return "no account's view differs" }
    return "\(differences.count) accounts' views differ:\n"
      + differences.map(\.appAccountToken).joined(separator: "\n")
  }
}
