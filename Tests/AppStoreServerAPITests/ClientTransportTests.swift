import AppStoreServerAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import StoreLedgerCore
import Synchronization
import Testing

/// The client's own transport behaviour against a bare server: timeouts, and bearer tokens
/// reused until a minute before they end.
@Suite struct ClientTransportTests {
  typealias H = SimulatorHarness

  final class Seen: Sendable {
    private let values = Mutex<[String]>([])
    func withLock<R>(_ body: (inout [String]) -> R) -> R { values.withLock { body(&$0) } }
  }

  /// A server whose transaction endpoint records the bearer tokens it sees, answering after
  /// `delay` with a body that is not Apple's.
  static func withServer(
    delay: Duration, _ body: @Sendable (String, Seen) async throws -> Void
  ) async throws {
    let tokens = Seen()
    let router = Router()
    router.get("/inApps/v1/transactions/:id") { request, _ -> String in
      tokens.withLock { $0.append(request.headers[.authorization] ?? "") }
      try await Task.sleep(for: delay)
      return "{}"
    }
    try await Application(router: router, logger: H.logger).test(.live) { client in
      try await body("http://127.0.0.1:\(client.port!)", tokens)
    }
  }

  static func client(
    _ url: String, timeout: Duration = .seconds(5), lifetime: Int64 = 300,
    now: @escaping @Sendable () -> Date = { Date() }
  ) throws -> AppStoreServerAPIClient {
    AppStoreServerAPIClient(
      configuration: AppStoreServerAPIConfiguration(
        baseURL: url, key: H.apiKey, timeout: timeout, maximumAttempts: 2,
        initialBackoff: .milliseconds(10), tokenLifetime: lifetime, now: now),
      verifier: try H.verifier(), logger: H.logger)
  }

  /// A wall clock that stands still until the test moves it.
  final class Clock: Sendable {
    private let seconds = Mutex<Double>(1_800_000_000)
    var now: Date { Date(timeIntervalSince1970: seconds.withLock { $0 }) }
    func advance(_ by: Double) { seconds.withLock { $0 += by } }
  }

  @Test func aSlowAnswerTimesOutAfterEveryAttempt() async throws {
    try await Self.withServer(delay: .seconds(3)) { url, tokens in
      let error = await #expect(throws: AppStoreAPIError.self) {
        try await Self.client(url, timeout: .milliseconds(300)).transactionInfo("1")
      }
      #expect(error?.code == .timeout && error?.isRetryable == true)
      #expect(tokens.withLock { $0.count } == 2)
    }
  }

  @Test func aBodyThatIsNotApplesIsAnInvalidResponse() async throws {
    try await Self.withServer(delay: .zero) { url, _ in
      let error = await #expect(throws: AppStoreAPIError.self) {
        try await Self.client(url).transactionInfo("1")
      }
      #expect(error?.code == .invalidResponse)
    }
  }

  @Test func tokensAreReusedUntilAMinuteBeforeTheyEnd() async throws {
    try await Self.withServer(delay: .zero) { url, tokens in
      let clock = Clock()
      let reusing = try Self.client(url, now: { clock.now })
      // A 300-second token serves for 239 s, and is minted again when 60 s or less are left.
      for step in [0.0, 100, 139] {
        clock.advance(step)
        _ = try? await reusing.transactionInfo("1")
      }
      #expect(Set(tokens.withLock { $0 }).count == 1)
      clock.advance(1)
      _ = try? await reusing.transactionInfo("1")
      #expect(Set(tokens.withLock { $0 }).count == 2)
      tokens.withLock { $0 = [] }
      // A 60-second token is never more than a minute from its end: one per call.
      let minting = try Self.client(url, lifetime: 60, now: { clock.now })
      for _ in 0..<3 {
        _ = try? await minting.transactionInfo("1")
        clock.advance(1)
      }
      #expect(Set(tokens.withLock { $0 }).count == 3)
    }
  }
}
