import Foundation
import StoreLedgerCore
import Testing

@testable import StoreLedger

/// The one retry schedule of change webhooks and relays: given a failed attempt, when the
/// next one is, and when the delivery is dead-lettered instead.
struct DeliveryScheduleTests {
  static let schedule = DeliverySchedule(
    initialDelay: .seconds(10), maximumDelay: .seconds(3600), retryFor: .seconds(3 * 86_400))
  static let first = Date(timeIntervalSince1970: 1_800_000_000)

  @Test func delaysDoubleFromTheFirstUpToTheMaximum() {
    let delays = (1...11).map { Self.schedule.delay(after: $0, jitter: 1) }
    #expect(delays == [10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600, 3600])
    #expect(Self.schedule.delay(after: 1, jitter: 0.8) == 8)
    #expect(Self.schedule.delay(after: 20, jitter: 1.2) == 4320)
  }

  @Test func aFailureWithinTheWindowIsRetriedAtItsDelay() {
    let now = Self.first.addingTimeInterval(60)
    let next = Self.schedule.afterFailure(
      attempt: 3, firstAttemptAt: Self.first, now: now, jitter: 1)
    #expect(next.state == .pending)
    #expect(next.retryAt == now.addingTimeInterval(40))
  }

  @Test func aRetryThatWouldFallBeyondTheWindowIsADeadLetter() {
    // The last retry that still falls inside three days, then the first that would not.
    let edge = Self.first.addingTimeInterval(3 * 86_400 - 3600)
    #expect(
      Self.schedule.afterFailure(attempt: 30, firstAttemptAt: Self.first, now: edge, jitter: 1)
        .state == .pending)
    let after = Self.schedule.afterFailure(
      attempt: 30, firstAttemptAt: Self.first, now: edge.addingTimeInterval(1), jitter: 1)
    #expect(after.state == .dead)
    #expect(after.retryAt == nil)
  }

  @Test func aNamedStateIsOneOfTheThreeAndAnotherWordIsRefusedWithThem() throws {
    #expect(try DeliveryState.named(nil) == nil)
    #expect(try DeliveryState.named("dead") == .dead)
    #expect(DeliveryState.pending.word == "retrying")
    #expect(DeliveryState.delivered.word == "delivered")
    let error = #expect(throws: LedgerError.self) { try DeliveryState.named("lost") }
    #expect(error?.code == .invalidRequest)
    #expect(error?.message.contains("pending, delivered, dead") == true)
  }
}
