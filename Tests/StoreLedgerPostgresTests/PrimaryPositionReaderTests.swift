import Synchronization
import Testing

@testable import StoreLedgerPostgres

/// Read-your-writes asks the primary for its position only when a read needs one, and once
/// for everyone who needs one at the same time: a reading begun after a write's commit serves
/// that write; one begun before it never does.
@Suite struct PrimaryPositionReaderTests {
  /// A primary whose position grows by one at each statement, each taking `delay`.
  final class CountingPrimary: Sendable {
    let statements = Atomic(0)
    let answers = Atomic(true)
    let delay: Duration

    init(delay: Duration = .milliseconds(50)) { self.delay = delay }

    func read() async -> WALPosition? {
      let number = statements.add(1, ordering: .sequentiallyConsistent).newValue
      try? await Task.sleep(for: delay)
      return answers.load(ordering: .sequentiallyConsistent) ? WALPosition(UInt64(number)) : nil
    }
  }

  @Test func concurrentReadersAfterOneWriteShareOneStatement() async {
    let primary = CountingPrimary()
    let reader = PrimaryPositionReader { await primary.read() }
    let committed = ContinuousClock.now
    let positions = await withTaskGroup(of: WALPosition?.self) { group in
      for _ in 0..<20 { group.addTask { await reader.position(after: committed) } }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(primary.statements.load(ordering: .sequentiallyConsistent) == 1)
    #expect(Set(positions) == [WALPosition(1)])
  }

  @Test func aFinishedReadingServesEarlierWritesButNotLaterOnes() async {
    let primary = CountingPrimary(delay: .zero)
    let reader = PrimaryPositionReader { await primary.read() }
    let first = ContinuousClock.now
    #expect(await reader.position(after: first) == WALPosition(1))
    #expect(await reader.position(after: first) == WALPosition(1))
    let second = ContinuousClock.now
    #expect(await reader.position(after: second) == WALPosition(2))
    #expect(primary.statements.load(ordering: .sequentiallyConsistent) == 2)
  }

  @Test func aProbesPositionServesWritesBeforeItsStatementBegan() async {
    let primary = CountingPrimary(delay: .zero)
    let reader = PrimaryPositionReader { await primary.read() }
    let write = ContinuousClock.now
    let probeBegan = ContinuousClock.now
    reader.offer(WALPosition(40), readingStartedAt: probeBegan)
    #expect(await reader.position(after: write) == WALPosition(40))
    #expect(primary.statements.load(ordering: .sequentiallyConsistent) == 0)
    // A write after the probe's statement began needs a statement of its own.
    #expect(await reader.position(after: ContinuousClock.now) == WALPosition(1))
  }

  @Test func aFailedReadingIsNotKept() async {
    let primary = CountingPrimary(delay: .zero)
    primary.answers.store(false, ordering: .sequentiallyConsistent)
    let reader = PrimaryPositionReader { await primary.read() }
    let write = ContinuousClock.now
    #expect(await reader.position(after: write) == nil)
    primary.answers.store(true, ordering: .sequentiallyConsistent)
    #expect(await reader.position(after: write) == WALPosition(2))
  }
}
