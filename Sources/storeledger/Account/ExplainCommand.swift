import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

struct ExplainCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "explain",
    abstract: "Why an account has (or lacks) an entitlement: the rule and the deciding events.",
    discussion: """
      Explains the entitlement at --at (default now) from the events Apple signed by then \
      (and, with --known-at, StoreLedger had recorded by then): a sentence to repeat to the \
      customer, the rule behind it, and the events that decided it — never one signed after \
      --at. Without an entitlement, every one of the catalog is explained, "never held" \
      included. Exit 1 for a name neither the catalog nor the account's log knows.

      Examples:
        storeledger explain 9f1c2b7e-… pro --database-url postgres://…
        storeledger explain 9f1c2b7e-… --at 2026-03-15T00:00:00Z --json …
      """)

  @Argument(help: "The appAccountToken.") var token: String
  @Argument(
    help:
      "The entitlement, as the catalog names it (or a product id without one); all when left out."
  )
  var entitlement: String?
  @Option(help: "The time to explain (a date, RFC 3339 or Unix ms; default now).") var at: String?
  @Option(
    name: .customLong("known-at"),
    help: "Use only events StoreLedger had recorded by then (a date, RFC 3339 or Unix ms).")
  var knownAt: String?
  @OptionGroup var ledger: LedgerOptions
  @Flag(help: "Print the explanation as JSON.") var json = false

  func run() async throws {
    let time = try at.map { try OptionTime.date($0, "--at") } ?? Date()
    let known = try knownAt.map { try OptionTime.date($0, "--known-at") }
    let (token, entitlement) = (token, entitlement)
    let (explanations, named) = try await ledger.withLedger("storeledger.explain") { ledger, _ in
      let named = entitlement.map(ledger.configuration.catalog.entitlementNames.contains) ?? false
      guard let entitlement else {
        return (try await ledger.explanations(for: token, at: time, knownAt: known), named)
      }
      let one = try await ledger.explain(
        entitlement: entitlement, for: token, at: time, knownAt: known)
      return ([one], named)
    }
    if let entitlement, explanations.allSatisfy({ $0.answer == "never held" }), !named {
      throw CommandFailure(
        "\(token) has no \(entitlement) at any time the log knows, and the catalog names no such "
          + "entitlement; list what it has with `storeledger explain \(token)`")
    }
    if json {
      let answer: AnyExplanations =
        entitlement == nil ? .all(explanations) : .one(explanations[0])
      say(try CommandJSON.string(answer))
    } else {
      say(explanations.map { Self.text($0, indent: "") }.joined(separator: "\n\n"))
    }
  }

  /// One explanation as an object, or several as an array.
  enum AnyExplanations: Encodable {
    case one(Explanation)
    case all([Explanation])

    func encode(to encoder: any Encoder) throws {
      switch self {
      case .one(let explanation): try explanation.encode(to: encoder)
      case .all(let explanations): try explanations.encode(to: encoder)
      }
    }
  }

  /// The sentence first; then, for engineers, the rule and the events, each source once.
  static func text(_ explanation: Explanation, indent: String) -> String {
    var lines = [
      "\(indent)\(explanation.subject): \(explanation.answer)",
      "\(indent)  \(explanation.sentence)",
      "\(indent)  rule \(explanation.rule)",
    ]
    if explanation.because.isEmpty {
      for event in explanation.events { lines.append(line(event, indent: indent, "·")) }
      for event in explanation.corroborating {
        lines.append(line(event, indent: indent, "  also signed in"))
      }
    }
    for source in explanation.because { lines.append(text(source, indent: indent + "  ")) }
    return lines.joined(separator: "\n")
  }

  private static func line(_ event: EventReference, indent: String, _ mark: String) -> String {
    let dated = event.dated { $0.date.formatted(.iso8601) }
    return "\(indent)  \(mark) \(event.notification ?? event.eventType) \(dated)"
      + (event.transactionId.map { ", transaction \($0)" } ?? "")
  }
}
