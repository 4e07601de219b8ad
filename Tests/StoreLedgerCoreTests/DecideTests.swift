import StoreLedgerTestSupport
import Testing

@testable import StoreLedgerCore

/// `decide` over an account's state, given events / when a command / then the events it adds
/// or why it refuses: no database.
@Suite struct DecideTests {
  typealias F = LedgerFixtures
  static let account = F.account(1)
  static let catalog = ProductCatalog(products: [
    "gems.100": .init(entitlements: ["gems"], units: 100)
  ])

  /// Given `events`, when `command`: the answer.
  func when(
    _ command: AccountCommand, given events: [LedgerEvent]
  ) -> Result<[LedgerEvent.Body], CommandRejection> {
    LedgerView(LedgerState.fold(events), catalog: Self.catalog).decide(command)
  }

  static let purchase = F.observed(
    F.transaction("9000", product: "gems.100", type: .consumable, purchased: 1, token: account))

  static func debit(_ id: String, _ quantity: Int64, at day: Double) -> ConsumableDebited {
    ConsumableDebited(
      id: id, appAccountToken: account, productId: "gems.100", quantity: quantity,
      debitedAt: F.t(day))
  }

  @Test func aDebitTheBalanceCoversIsDecided() {
    let debit = Self.debit("d1", 60, at: 2)
    #expect(when(.debit(debit), given: [Self.purchase]) == .success([.debit(debit)]))
  }

  @Test func aDebitBeyondTheBalanceIsRefused() {
    let given = [
      Self.purchase, F.debit("d0", token: Self.account, product: "gems.100", quantity: 60, at: 2),
    ]
    #expect(
      when(.debit(Self.debit("d1", 41, at: 3)), given: given).rejection == .insufficientBalance)
    #expect(when(.debit(Self.debit("d1", 40, at: 3)), given: given).events?.count == 1)
  }

  /// The balance is the one at the debit's time: units bought later do not cover it.
  @Test func aDebitIsDecidedOnTheBalanceAtItsTime() {
    #expect(
      when(.debit(Self.debit("d1", 1, at: 0.5)), given: [Self.purchase]).rejection
        == .insufficientBalance)
  }

  /// A retry of a debit the log already holds is the same decision, even once the balance is
  /// spent (the log recognises the stored event by its key).
  @Test func aRetriedDebitIsDecidedAgainTheSame() {
    let given = [
      Self.purchase, F.debit("d1", token: Self.account, product: "gems.100", quantity: 100, at: 2),
    ]
    let retry = Self.debit("d1", 100, at: 5)
    #expect(when(.debit(retry), given: given) == .success([.debit(retry)]))
  }

  @Test func malformedCommandsAreRefused() {
    #expect(
      when(.debit(Self.debit("", 1, at: 2)), given: [Self.purchase]).rejection == .invalidCommand)
    #expect(
      when(.debit(Self.debit("d", 0, at: 2)), given: [Self.purchase]).rejection == .invalidCommand)
    #expect(
      when(
        .link(AccountLinked(appAccountToken: Self.account, originalTransactionId: "")), given: []
      )
      .rejection == .invalidCommand)
  }

  @Test func aLinkIsDecided() {
    let link = AccountLinked(
      appAccountToken: Self.account, originalTransactionId: "9100", linkedAt: F.t(1))
    #expect(when(.link(link), given: []) == .success([.link(link)]))
  }

  @Test func aDebitIdReusedForAnotherDebitIsRefused() {
    let given = [
      Self.purchase, F.debit("d1", token: Self.account, product: "gems.100", quantity: 10, at: 2),
    ]
    #expect(
      when(.debit(Self.debit("d1", 11, at: 5)), given: given).rejection == .idempotencyKeyReused)
  }

  /// T1: a transfer gives the chain to its new account from its moment on; before it, and
  /// after Apple signs a token into the chain again, the other rules decide.
  @Test func aTransferMovesThePurchaseFromItsMomentUntilAppleSignsAgain() {
    let (from, to) = (F.account(1), F.account(2))
    let bought = F.observed(F.transaction("9300", purchased: 0, expires: 30, token: from))
    let moved = LedgerEvent(
      .link(
        AccountLinked(
          appAccountToken: to, originalTransactionId: "9300", linkedAt: F.t(10),
          transferredFrom: from)), recordedAt: F.t(10), key: "transfer:9300")
    let view = LedgerView(LedgerState.fold([bought, moved]))
    #expect(view.subscription("9300", at: F.t(5))?.appAccountToken == from)
    #expect(view.subscription("9300", at: F.t(15))?.appAccountToken == to)
    let explained = view.explainSubscription("9300", at: F.t(15))
    #expect(explained?.events.contains { $0.key == "transfer:9300" } == true)
    #expect(
      view.explainSubscription("9300", at: F.t(5))?.events.contains {
        $0.key == "transfer:9300"
      } == false)
    let renewed = F.observed(
      F.transaction("9301", original: "9300", purchased: 30, expires: 60, signed: 30, token: from))
    let later = LedgerView(LedgerState.fold([bought, moved, renewed]))
    #expect(later.subscription("9300", at: F.t(35))?.appAccountToken == from)
  }
}

extension Result where Success == [LedgerEvent.Body], Failure == CommandRejection {
  var rejection: CommandRejection.Code? {
    if case .failure(let rejection) = self { return rejection.code }
    return nil
  }

  var events: [LedgerEvent.Body]? { try? get() }
}
