import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

/// The account page's small parts: sections, evidence, names, instants, money and JSON.
extension AccountPage {
  /// The section's heading; when it has nothing to show, `notice` too, and false.
  func section(
    _ html: inout HTML, _ id: String, _ title: String, empty: Bool, _ notice: String
  ) -> Bool {
    html.element("h2", ["id": id], text: title)
    if empty { html.element("p", text: notice) }
    return !empty
  }

  func yesNo(_ html: inout HTML, _ value: Bool) {
    html.element("span", ["class": value ? "yes" : "no"], text: value ? "yes" : "no")
  }

  /// The sentence first, for support; the rule, Apple's constants and the events behind a
  /// disclosure, for engineers. Each source's events are listed once, under that source.
  static func explanation(_ explanation: Explanation, into html: inout HTML) {
    html.element("div", ["class": "explanation"]) { html in
      html.element("p", ["class": "sentence"], text: explanation.sentence)
      html.element("details") { html in
        html.element("summary", text: "Rule and events")
        evidence(explanation, into: &html)
      }
    }
  }

  static func evidence(_ explanation: Explanation, into html: inout HTML) {
    html.element("p") { html in
      html.element("strong", text: "\(explanation.subject): \(explanation.answer)")
      html.element("br")
      html.text("rule \(explanation.rule)")
    }
    if explanation.because.isEmpty {
      let cited =
        explanation.events.map { ($0, "") }
        + explanation.signedLater.map { ($0, " — signed after this moment") }
        + explanation.corroborating.map { ($0, " — the same transaction again") }
      if !cited.isEmpty {
        html.element("ul") { html in
          for (event, note) in cited {
            html.element(
              "li",
              text: "\(event.notification ?? event.eventType) \(event.dated(instant))"
                + (event.transactionId.map { ", transaction \($0)" } ?? "") + note)
          }
        }
      }
    }
    for source in explanation.because { evidence(source, into: &html) }
  }

  static func name(of event: StoredEvent) -> String {
    guard case .object(let facts)? = event.facts,
      case .object(let notification)? = facts["notification"]
    else { return event.eventType }
    let type = notification["notificationType"]?.string ?? event.eventType
    return notification["subtype"]?.string.map { "\(type)/\($0)" } ?? type
  }

  static func instant(_ time: Timestamp) -> String { SubscriptionTimeline.instant(time) }

  /// The consumption information sent to Apple, in words.
  static func answer(_ answer: ConsumptionInformation) -> String {
    [
      answer.customerConsented ? "customer consented" : "no consent",
      "delivery \(answer.deliveryStatus.rawValue)",
      answer.consumptionPercentage.map { String(format: "%.1f %% consumed", Double($0) / 1000) },
      answer.sampleContentProvided ? "sample content provided" : nil,
      answer.refundPreference.map { "refund preference \($0.rawValue)" },
    ].compactMap { $0 }.joined(separator: ", ")
  }

  /// What became of a change at each webhook: delivered when, retrying, dead, or waiting.
  static func delivery(_ deliveries: [ChangeDelivery]) -> String {
    guard !deliveries.isEmpty else { return "—" }
    return deliveries.map { delivery in
      let outcome =
        switch delivery.state {
        case .delivered:
          "delivered \(delivery.deliveredAt.map { $0.formatted(.iso8601) } ?? "")"
        case .dead: "dead after \(delivery.attempts) attempts"
        default:
          delivery.attempts == 0
            ? "waiting"
            : "retrying (\(delivery.attempts) attempts"
              + (delivery.lastStatus.map { ", HTTP \($0)" } ?? "") + ")"
        }
      return "\(delivery.endpoint): \(outcome)"
    }.joined(separator: "; ")
  }

  static func money(_ milliunits: Int64, _ currency: String?) -> String {
    String(format: "%.2f", Double(milliunits) / 1000) + " " + (currency ?? "")
  }

  static func pretty(_ value: JSONValue) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? ""
  }
}
