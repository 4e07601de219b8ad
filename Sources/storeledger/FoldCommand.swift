import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

struct FoldCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "fold",
    abstract: "Fold a scenario's events and print the projected state.",
    discussion: """
      Reads a scenario file (design.md, "Scenario files"; examples in projections/scenarios):
      events with decoded payloads and Apple's field names, an optional catalog, and asOf. \
      Prints subscriptions (status 1 active, 2 expired, 3 billing retry, 4 grace period, \
      5 revoked), one-time purchases, consumable balances, revocations and entitlements at \
      asOf, or at --as-of when given.

      Exit codes: 0 success; 1 the scenario cannot be read (the message names the event index \
      and field), or --check found a difference from the scenario's "expect"; 2 usage error.

      Examples:
        storeledger fold projections/scenarios/21-refund-current-period.json
        storeledger fold scenario.json --as-of 2026-02-15T00:00:00Z --json
        storeledger fold scenario.json --as-of 1771113600000 --explain
        storeledger fold scenario.json --check
      """)

  @Argument(help: "Scenario file, or - for standard input.")
  var file: String

  @Option(
    name: .customLong("as-of"),
    help: "Evaluate at this time (a date, RFC 3339 or Unix ms) instead of the scenario's asOf.")
  var asOf: String?

  @Flag(help: "Print the projections as JSON.")
  var json = false

  @Flag(help: "Also explain every subscription status and entitlement (rule and events).")
  var explain = false

  @Flag(help: "Compare with the scenario's \"expect\" and exit 1 on any difference.")
  var check = false

  func validate() throws {
    _ = try requestedTime()
  }

  func run() throws {
    let scenario: Scenario
    do {
      scenario = try Scenario.decode(Data(try InputReader.bytes(file)))
    } catch let error as ScenarioError {
      return try fail(code: "invalid_scenario", message: error.message)
    } catch let error as InputReader.Failure {
      return try fail(code: "unreadable_input", message: error.message)
    }
    let time = try requestedTime() ?? scenario.asOf
    let view = scenario.view(at: time)
    let snapshot = view.snapshot(at: time)
    StandardStreams.out(json ? try FoldOutput.json(snapshot) : FoldOutput.tables(snapshot))
    if explain { StandardStreams.out(FoldOutput.explanations(view, snapshot: snapshot)) }
    if check { try compare(scenario, snapshot) }
  }

  private func compare(_ scenario: Scenario, _ snapshot: LedgerSnapshot) throws {
    guard scenario.expect != nil else {
      return try fail(code: "no_expectation", message: "the scenario has no \"expect\" to check")
    }
    let differences = try scenario.mismatches(of: snapshot)
    guard differences.isEmpty else {
      return try fail(
        code: "expectation_mismatch", message: differences.joined(separator: "\n  "))
    }
    StandardStreams.error("check: matches the scenario's expect\n")
  }

  private func requestedTime() throws -> Timestamp? {
    guard let asOf else { return nil }
    guard let time = InstantText.parse(asOf) else {
      throw ValidationError(InstantText.problem("--as-of", asOf))
    }
    return time
  }

  private func fail(code: String, message: String) throws {
    StandardStreams.error("error: \(code): \(message)\n")
    throw ExitCode.failure
  }
}
