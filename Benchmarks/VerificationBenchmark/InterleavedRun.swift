import Foundation

struct BenchmarkCase {
  let name: String
  let body: @Sendable () async throws -> Void
}

/// Runs every case in turn for a short slice, `rounds` times, recording operations per second.
struct InterleavedRun {
  let cases: [BenchmarkCase]
  let rounds: Int
  let seconds: Double

  struct Report {
    /// rates[round][case]
    let rates: [[Double]]

    func medianRate(_ index: Int) -> Double { median(rates.map { $0[index] }) }

    func medianRatio(_ ratio: ([Double]) -> Double) -> Double { median(rates.map(ratio)) }

    private func median(_ values: [Double]) -> Double {
      let sorted = values.sorted()
      return sorted[sorted.count / 2]
    }
  }

  func run() async throws -> Report {
    for benchmark in cases {
      for _ in 0..<50 { try await benchmark.body() }
    }
    let slice = seconds / Double(rounds * cases.count)
    var rates: [[Double]] = []
    for _ in 0..<rounds {
      var round: [Double] = []
      for benchmark in cases { round.append(try await rate(of: benchmark, for: slice)) }
      rates.append(round)
    }
    return Report(rates: rates)
  }

  private func rate(of benchmark: BenchmarkCase, for slice: Double) async throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    var operations = 0
    var elapsed = 0.0
    repeat {
      for _ in 0..<20 { try await benchmark.body() }
      operations += 20
      elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    } while elapsed < slice
    return Double(operations) / elapsed
  }
}
