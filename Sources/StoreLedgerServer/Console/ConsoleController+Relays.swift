import Foundation
import HTTPTypes
import Hummingbird
import StoreLedger
import StoreLedgerCore

/// The console's relays: the targets with their queues, and one target's attempts from the
/// log (searchable by notification) with its dead letters.
extension ConsoleController {
  func registerRelays(on group: RouterGroup<LedgerRequestContext>) {
    group.get(RouterPath("/console/relays")) { request, _ in
      try await signedIn(request) { try await relayTargetsPage() }
    }
    group.get(RouterPath("/console/relays/{name}")) { request, context in
      try await signedIn(request) {
        try await relayTargetPage(
          try context.parameters.require("name"),
          notification: Self.values(request)["notification"])
      }
    }
  }

  private func relayTargetsPage() async throws -> Response {
    var targets: [(RelayTarget, RelayTargetCounts)] = []
    do {
      targets = try await Relays(ledger: ledger).targets()
    } catch {
      guard error.code == .notConfigured else { throw error }
      return message("Relays", error.message, status: .ok)
    }
    let document = page.document(title: "Relays") { html in
      RelaysPage(targets: targets, base: base).render(into: &html)
    }
    return ConsolePage.response(document)
  }

  private func relayTargetPage(_ name: String, notification: String?) async throws -> Response {
    let front = Relays(ledger: ledger)
    var attempts: [RecordedRelayAttempt] = []
    var attemptsTotal = 0
    do {
      let page = try await front.attemptsPage(
        of: name, notificationUUID: notification, limit: 100)
      (attempts, attemptsTotal) = (page.attempts, page.total ?? page.attempts.count)
    } catch {
      guard error.code == .invalidRequest else { throw error }
      return message("Relay", error.message, status: .badRequest)
    }
    let target: RelayTarget? = try? await front.target(named: name)
    var dead = ListPage<RelayDelivery>(rows: [], total: 0, nextCursor: nil)
    if target != nil {
      dead = try await front.deliveriesPage(of: name, state: .dead, limit: 100)
    }
    let view = RelayTargetPage(
      name: name.lowercased(), target: target, attempts: attempts,
      attemptsTotal: attemptsTotal, dead: dead,
      notification: notification, base: base)
    let document = page.document(title: "Relay " + name.lowercased()) { html in
      view.render(into: &html)
    }
    return ConsolePage.response(document)
  }
}
