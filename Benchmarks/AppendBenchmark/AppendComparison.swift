import Foundation
import StoreLedgerPostgres
import StoreLedgerCore

/// Runs every case on both sides, alternating, for `rounds` rounds, and keeps each rate.
struct AppendComparison: Sendable {
  let store: EventStore
  let plain: PlainInsert
  let cases: [AppendCase]
  let rounds: Int
  let seconds: Double

  struct Report {
    let cases: [AppendCase]
    /// engine[case][round], plain[case][round]: events per second
    let engine: [[Double]]
    let plain: [[Double]]

    func print() {
      Swift.print("appended events/s (median of \(engine.first?.count ?? 0) interleaved rounds)")
      Swift.print(
        pad("case", 28) + pad("StoreLedger", 13) + pad("plain INSERT", 14)
          + "ratio (per-round median)")
      for (index, shape) in cases.enumerated() {
        let ratios = zip(engine[index], plain[index]).map { $0 / $1 }
        Swift.print(
          pad(shape.name, 28) + pad(format(median(engine[index])), 13)
            + pad(format(median(plain[index])), 14)
            + String(
              format: "%.2f  (rounds: %@)", median(ratios),
              ratios.map { String(format: "%.2f", $0) }.joined(separator: " ")))
      }
    }

    private func pad(_ text: String, _ width: Int) -> String {
      text.padding(toLength: max(width, text.count + 1), withPad: " ", startingAt: 0)
    }

    private func format(_ rate: Double) -> String { String(format: "%.0f", rate) }

    private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
  }

  func run() async throws -> Report {
    for (index, shape) in cases.enumerated() {  // warm-up: connections, plans, caches
      _ = try await measureEngine(shape, label: "warm-e\(index)", seconds: 0.5)
      _ = try await measurePlain(shape, label: "warm-p\(index)", seconds: 0.5)
    }
    var engine = Array(repeating: [Double](), count: cases.count)
    var plainRates = engine
    for round in 0..<rounds {
      for (index, shape) in cases.enumerated() {
        let first = round % 2 == 0
        if first {
          engine[index].append(try await measureEngine(shape, label: "e\(round)-\(index)"))
        }
        plainRates[index].append(try await measurePlain(shape, label: "p\(round)-\(index)"))
        if !first {
          engine[index].append(try await measureEngine(shape, label: "e\(round)-\(index)"))
        }
      }
    }
    return Report(cases: cases, engine: engine, plain: plainRates)
  }

  private func measureEngine(_ shape: AppendCase, label: String, seconds: Double? = nil)
    async throws -> Double
  {
    try await measure(shape, label: label, seconds: seconds) { [store] next in
      _ = try await store.append(next.events, to: next.stream)
    }
  }

  private func measurePlain(_ shape: AppendCase, label: String, seconds: Double? = nil)
    async throws -> Double
  {
    try await measure(shape, label: label, seconds: seconds) { [plain] next in
      try await plain.insert(next.events, into: next.stream, firstVersion: next.firstVersion)
    }
  }

  /// Events per second when every appender writes its next transaction with `write`.
  private func measure(
    _ shape: AppendCase, label: String, seconds: Double?,
    _ write:
      @escaping @Sendable ((stream: String, firstVersion: Int64, events: [NewEvent]))
      async throws -> Void
  ) async throws -> Double {
    let appenders = AppenderSet(shape, label: label)
    return try await ConcurrentRun.eventsPerSecond(
      appenders: shape.appenders, seconds: seconds ?? self.seconds
    ) { appender, _ in
      let next = appenders.next(appender)
      try await write(next)
      return next.events.count
    }
  }
}
