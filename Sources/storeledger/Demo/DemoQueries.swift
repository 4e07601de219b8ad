import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Entitlement queries against the running server: `count` requests, 16 in flight, cycling
/// over the accounts; latency percentiles from every request.
struct DemoQueries {
  let port: Int
  let bearer: String
  let tokens: [String]
  let count: Int
  let concurrency = 16

  func run() async throws -> DemoSummary.Throughput {
    let started = ContinuousClock.now
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
      for worker in 0..<concurrency {
        group.addTask { try await requests(worker: worker) }
      }
      var all: [Double] = []
      for try await some in group { all += some }
      return all.sorted()
    }
    let seconds = (ContinuousClock.now - started).seconds
    func percentile(_ share: Double) -> Double? {
      latencies.isEmpty
        ? nil : latencies[min(latencies.count - 1, Int(Double(latencies.count) * share))]
    }
    return .init(
      count: latencies.count, seconds: seconds, p50Milliseconds: percentile(0.5),
      p99Milliseconds: percentile(0.99))
  }

  private func requests(worker: Int) async throws -> [Double] {
    var latencies: [Double] = []
    var index = worker
    while index < count {
      let token = tokens[index % tokens.count]
      let escaped = token.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? token
      var request = HTTPClientRequest(
        url: "http://127.0.0.1:\(port)/v1/accounts/\(escaped)/entitlements")
      request.headers.add(name: "Authorization", value: "Bearer \(bearer)")
      let started = ContinuousClock.now
      let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
      _ = try await response.body.collect(upTo: 1 << 20)
      guard response.status == .ok else {
        throw DemoFailure(description: "an entitlement query answered \(response.status.code)")
      }
      latencies.append((ContinuousClock.now - started).seconds * 1000)
      index += concurrency
    }
    return latencies
  }
}

/// A demo stage that did not go as it must.
struct DemoFailure: Error, CustomStringConvertible {
  var description: String
}
