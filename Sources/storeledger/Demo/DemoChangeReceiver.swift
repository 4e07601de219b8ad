import Foundation
import HTTPTypes
import Hummingbird
import Logging
import StoreLedger
import Synchronization

/// The backend the demo tells what changed: a webhook on loopback that checks every
/// delivery's signature (as README shows a receiver doing) and counts the distinct changes.
/// Beside it, a staging backend that Apple's notifications are relayed to: it fails about one
/// request in five and counts the distinct bodies it accepted.
final class DemoChangeReceiver: Sendable {
  static let secret = UUID().uuidString

  private struct State {
    var ids: Set<String> = []
    var requests = 0
    var badSignatures = 0
    var port: Int?
    var relayed: Set<[UInt8]> = []
    var relayRequests = 0
    var relayRefused = 0
  }

  private let state = Mutex(State())

  var delivered: Int { state.withLock { $0.ids.count } }
  var requests: Int { state.withLock { $0.requests } }
  var badSignatures: Int { state.withLock { $0.badSignatures } }
  /// Distinct notification bodies the staging backend accepted, requests it got, and the
  /// requests it failed on purpose.
  var relayed: (accepted: Int, requests: Int, refused: Int) {
    state.withLock { ($0.relayed.count, $0.relayRequests, $0.relayRefused) }
  }

  /// Serves until cancelled; `port` is set once it listens.
  func serve(logger: Logger) async throws {
    let router = Router()
    router.post("/changes") { request, _ -> HTTPResponse.Status in
      var request = request
      let body = Array(try await request.collectBody(upTo: 1 << 20).readableBytesView)
      let header = request.headers[HTTPField.Name(ChangeSignature.header)!] ?? ""
      guard ChangeSignature.isValid(header, body: body, secret: Self.secret) else {
        self.state.withLock { $0.badSignatures += 1 }
        return .unauthorized
      }
      let id = (try? JSONDecoder().decode(Body.self, from: Data(body)))?.id
      self.state.withLock { state in
        state.requests += 1
        if let id { state.ids.insert(id) }
      }
      return .noContent
    }
    router.post("/staging") { request, _ -> HTTPResponse.Status in
      var request = request
      let body = Array(try await request.collectBody(upTo: 1 << 20).readableBytesView)
      return self.state.withLock { state in
        state.relayRequests += 1
        // Fails about one request in five, spread evenly (a fixed stride, so runs repeat).
        if (state.relayRequests * 7919) % 10 < 2 {
          state.relayRefused += 1
          return .internalServerError
        }
        state.relayed.insert(body)
        return .ok
      }
    }
    let app = Application(
      router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
      onServerRunning: { channel in self.state.withLock { $0.port = channel.localAddress?.port } },
      logger: logger)
    try await app.runService(gracefulShutdownSignals: [])
  }

  /// The receiver's URL, once it listens.
  func url() async throws -> String {
    while true {
      if let port = state.withLock({ $0.port }) { return "http://127.0.0.1:\(port)/changes" }
      try await Task.sleep(for: .milliseconds(20))
    }
  }

  /// The staging backend's URL, once it listens.
  func stagingURL() async throws -> String {
    let changes = try await url()
    return String(changes.dropLast("/changes".count)) + "/staging"
  }

  private struct Body: Decodable {
    let id: String
  }
}
