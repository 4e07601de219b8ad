import Foundation
import StoreLedgerServer
import Synchronization

// What recording a request costs through swift-metrics into the server's Prometheus registry,
// against a ceiling measured in the same run: the hand-written counter it replaced (one lock,
// one dictionary increment). Also what rendering `/metrics` costs with those series.
//
//   swift build -c release --package-path Benchmarks --product MetricsBenchmark && Benchmarks/.build/release/MetricsBenchmark

let requests = 1_000_000
let rounds = 5
let routes = [
  "/v1/notifications/appstore", "/v1/accounts/{token}/entitlements", "/v1/changes",
  "/v1/accounts/{token}/subscriptions", "/v1/transactions",
]
let statuses = [200, 201, 401, 404]
let keys = routes.flatMap { route in statuses.map { (route, $0) } }

/// The replaced recorder: counts by label values under one lock.
final class HandWrittenCounter: Sendable {
  private let counts = Mutex<[[String]: Int]>([:])

  func request(app: String, method: String, route: String, status: Int) {
    counts.withLock { $0[[app, method, route, String(status)], default: 0] += 1 }
  }
}

func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func time(tasks: Int, _ record: @escaping @Sendable (Int) -> Void) async -> Double {
  let start = ContinuousClock.now
  await withTaskGroup(of: Void.self) { group in
    for task in 0..<tasks {
      group.addTask {
        for index in stride(from: task, to: requests, by: tasks) { record(index) }
      }
    }
  }
  return seconds(ContinuousClock.now - start)
}

for tasks in [1, 2] {
  var ratios: [Double] = []
  for round in 1...rounds {
    let metrics = ServerMetrics()
    let ceiling = HandWrittenCounter()
    let viaMetrics = await time(tasks: tasks) { index in
      let (route, status) = keys[index % keys.count]
      metrics.request(app: "default", method: "GET", route: route, status: status)
    }
    let handWritten = await time(tasks: tasks) { index in
      let (route, status) = keys[index % keys.count]
      ceiling.request(app: "default", method: "GET", route: route, status: status)
    }
    let ratio = handWritten / viaMetrics
    ratios.append(ratio)
    print(
      String(
        format: "tasks %d round %d: swift-metrics %.0f ns/request, hand-written %.0f ns/request, "
          + "ratio %.2f", tasks, round, viaMetrics / Double(requests) * 1e9,
        handWritten / Double(requests) * 1e9, ratio))
    if round == rounds {
      let scrapes = 2_000
      let start = ContinuousClock.now
      var bytes = 0
      for _ in 0..<scrapes { bytes += metrics.render().utf8.count }
      let each = seconds(ContinuousClock.now - start) / Double(scrapes)
      print(
        String(
          format: "render: %.1f µs per scrape of %d bytes (%d series)", each * 1e6,
          bytes / scrapes, keys.count))
    }
  }
  print(
    String(
      format: "tasks %d: median ratio (hand-written time / swift-metrics time) %.2f", tasks,
      ratios.sorted()[rounds / 2]))
}
