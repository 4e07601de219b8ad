import AsyncHTTPClient
import BenchmarkSupport
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Concurrent HTTP clients over loopback: each worker sends its requests one after the other.
struct LoadClient: Sendable {
  let client: HTTPClient
  let base: String

  init(base: String, connections: Int) {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = connections * 2
    client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    self.base = base
  }

  func shutdown() async throws { try await client.shutdown() }

  /// Sends one request; returns its status.
  func send(_ method: HTTPMethod, _ path: String, body: [UInt8]? = nil, bearer: String? = nil)
    async throws -> UInt
  {
    try await exchange(method, path, body: body, bearer: bearer).status
  }

  /// Sends one request; returns its status and the body of the answer.
  func exchange(
    _ method: HTTPMethod, _ path: String, body: [UInt8]? = nil, bearer: String? = nil
  ) async throws -> (status: UInt, body: ByteBuffer) {
    var request = HTTPClientRequest(url: base + path)
    request.method = method
    if let body {
      request.headers.add(name: "content-type", value: "application/json")
      request.body = .bytes(ByteBuffer(bytes: body))
    }
    if let bearer { request.headers.add(name: "authorization", value: "Bearer \(bearer)") }
    let response = try await client.execute(request, timeout: .seconds(60))
    let answer = try await response.body.collect(upTo: 16 * 1024 * 1024)
    return (response.status.code, answer)
  }

  /// `count` requests made by `workers` concurrent workers; returns seconds and statuses.
  func run(
    count: Int, workers: Int, _ request: @escaping @Sendable (Int) async throws -> UInt
  ) async throws -> (seconds: Double, statuses: [UInt: Int]) {
    let start = ContinuousClock.now
    let statuses = try await withThrowingTaskGroup(of: [UInt: Int].self) { group in
      for worker in 0..<workers {
        group.addTask {
          var statuses: [UInt: Int] = [:]
          for index in stride(from: worker, to: count, by: workers) {
            statuses[try await request(index), default: 0] += 1
          }
          return statuses
        }
      }
      return try await group.reduce(into: [:]) { total, part in
        total.merge(part, uniquingKeysWith: +)
      }
    }
    return ((ContinuousClock.now - start).seconds, statuses)
  }

  /// Requests for `duration` from `workers` workers; returns the count and every latency.
  func timed(
    for duration: Duration, workers: Int, _ request: @escaping @Sendable (Int) async throws -> UInt
  ) async throws -> (seconds: Double, latencies: [Double], failures: Int) {
    let start = ContinuousClock.now
    let end = start + duration
    let results = try await withThrowingTaskGroup(of: ([Double], Int).self) { group in
      for worker in 0..<workers {
        group.addTask {
          var latencies: [Double] = []
          var failures = 0
          var index = worker
          while ContinuousClock.now < end {
            let sent = ContinuousClock.now
            if try await request(index) != 200 { failures += 1 }
            latencies.append((ContinuousClock.now - sent).seconds)
            index += workers
          }
          return (latencies, failures)
        }
      }
      return try await group.reduce(into: ([Double](), 0)) { total, part in
        total.0 += part.0
        total.1 += part.1
      }
    }
    return ((ContinuousClock.now - start).seconds, results.0, results.1)
  }
}

extension Duration {
  var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
  guard !values.isEmpty else { return 0 }
  let sorted = values.sorted()
  return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
}

func rate(_ count: Int, _ seconds: Double) -> String {
  String(format: "%.0f/s", Double(count) / seconds)
}

func milliseconds(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }
