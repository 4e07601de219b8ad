import Foundation
import HTTPTypes
import Hummingbird
import Logging
import StoreLedger
import Synchronization

/// The backend the demo tells what changed: a webhook on loopback that checks every
/// delivery's signature (as README shows a receiver doing) and counts the distinct changes.
final class DemoChangeReceiver: Sendable {
  static let secret = UUID().uuidString

  private struct State {
    var ids: Set<String> = []
    var requests = 0
    var badSignatures = 0
    var port: Int?
  }

  private let state = Mutex(State())

  var delivered: Int { state.withLock { $0.ids.count } }
  var requests: Int { state.withLock { $0.requests } }
  var badSignatures: Int { state.withLock { $0.badSignatures } }

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

  private struct Body: Decodable {
    let id: String
  }
}
