import Foundation
import Synchronization

/// The server's counters and the append latency histogram, rendered in Prometheus' text
/// format at `/metrics`. Labels carry routes, outcomes and codes, never tokens or payloads.
public final class ServerMetrics: Sendable {
  private struct State {
    var requests: [[String]: Int] = [:]
    var ingests: [[String]: Int] = [:]
    var verificationFailures: [String: Int] = [:]
    var appendBuckets = [Int](repeating: 0, count: ServerMetrics.appendBounds.count)
    var appendCount = 0
    var appendSum = 0.0
  }

  /// Upper bounds (seconds) of the append latency buckets.
  static let appendBounds: [Double] = [
    0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
  ]
  private let state = Mutex(State())

  public init() {}

  func request(method: String, route: String, status: Int) {
    state.withLock { $0.requests[[method, route, String(status)], default: 0] += 1 }
  }

  /// One ingest (`kind`: notification, transaction, link, debit) and how it ended.
  func ingest(kind: String, outcome: String, notificationType: String? = nil) {
    state.withLock { $0.ingests[[kind, outcome, notificationType ?? ""], default: 0] += 1 }
  }

  func verificationFailure(code: String) {
    state.withLock { $0.verificationFailures[code, default: 0] += 1 }
  }

  func append(seconds: Double) {
    state.withLock { state in
      state.appendCount += 1
      state.appendSum += seconds
      for (index, bound) in Self.appendBounds.enumerated() where seconds <= bound {
        state.appendBuckets[index] += 1
      }
    }
  }

  /// The exposition text.
  public func render() -> String {
    let state = self.state.withLock { $0 }
    var text = ""
    text += family(
      "storeledger_http_requests_total", "counter", "HTTP requests by method, route and status.",
      state.requests, labels: ["method", "route", "status"])
    text += family(
      "storeledger_ingests_total", "counter",
      "Ingested inputs by kind, outcome (stored, duplicate, rejected) and notification type.",
      state.ingests, labels: ["kind", "outcome", "notification_type"])
    text += family(
      "storeledger_verification_failures_total", "counter",
      "Signed data refused by the verifier, by reason.",
      Dictionary(uniqueKeysWithValues: state.verificationFailures.map { ([$0.key], $0.value) }),
      labels: ["code"])
    text += histogram(state)
    return text
  }

  private func family(
    _ name: String, _ type: String, _ help: String, _ values: [[String]: Int], labels: [String]
  ) -> String {
    var text = "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    for (key, value) in values.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
      let pairs = zip(labels, key).map { "\($0)=\"\(Self.escaped($1))\"" }
      text += "\(name){\(pairs.joined(separator: ","))} \(value)\n"
    }
    return text
  }

  private func histogram(_ state: State) -> String {
    let name = "storeledger_append_seconds"
    var text =
      "# HELP \(name) Time to verify, append and index one input.\n# TYPE \(name) histogram\n"
    for (bound, count) in zip(Self.appendBounds, state.appendBuckets) {
      text += "\(name)_bucket{le=\"\(bound)\"} \(count)\n"
    }
    text += "\(name)_bucket{le=\"+Inf\"} \(state.appendCount)\n"
    text += "\(name)_sum \(state.appendSum)\n\(name)_count \(state.appendCount)\n"
    return text
  }

  private static func escaped(_ value: String) -> String {
    value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      .replacingOccurrences(of: "\n", with: "\\n")
  }
}

extension Duration {
  var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
