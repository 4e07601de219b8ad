import Foundation

/// How the benchmark prints its figures.
enum Figures {
  static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  static func rate(_ count: Int, _ elapsed: Double) -> String {
    String(format: "%9.0f", Double(count) / elapsed)
  }

  static func megabytes() -> String {
    PeakMemory.megabytes().map { String(format: "%6.0f MB", $0) } ?? "?"
  }

  /// Runs one read phase from a fresh peak-memory mark and prints its line; returns the rows
  /// and the seconds.
  static func measure(_ phase: String, _ round: Int, _ body: () async throws -> Int)
    async rethrows -> (Int, Double)
  {
    PeakMemory.reset()
    let start = ContinuousClock.now
    let rows = try await body()
    let elapsed = seconds(ContinuousClock.now - start)
    let label = phase.padding(toLength: 24, withPad: " ", startingAt: 0)
    print("\(round)      \(label)\(rows)   \(rate(rows, elapsed))   \(megabytes())")
    return (rows, elapsed)
  }
}
