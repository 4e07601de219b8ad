import StoreLedgerPostgres
import Testing

@Suite struct WakeUpSignalTests {
  @Test func signalGivenBeforeTheWaitIsNotLost() async {
    let signal = WakeUpSignal()
    let seen = signal.generation
    signal.signal()
    #expect(await signal.wait(after: seen, timeout: .seconds(30)))
  }

  @Test func waitWithoutNewSignalTimesOut() async {
    let signal = WakeUpSignal()
    signal.signal()
    #expect(await signal.wait(after: signal.generation, timeout: .milliseconds(10)) == false)
  }

  @Test func signalWakesEveryWaiter() async {
    let signal = WakeUpSignal()
    let seen = signal.generation
    async let first = signal.wait(after: seen, timeout: .seconds(30))
    async let second = signal.wait(after: seen, timeout: .seconds(30))
    signal.signal()
    #expect(await [first, second] == [true, true])
  }
}
