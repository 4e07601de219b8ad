import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedger
import StoreLedgerCore
import StoreLedgerServer
import StoreLedgerTestSupport
import Synchronization
import Testing

/// A server that signs checkpoints as the log grows (on a real PostgreSQL) serves them and
/// the consistency proof between two; one without a directory says so.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct CheckpointEndpointTests {
  typealias H = ServerHarness
  typealias F = LedgerFixtures

  @Test func aSigningServerServesCheckpointsAndTheirConsistencyProof() async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "served-checkpoints-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let key = CheckpointKey.generate(.ed25519)
    try await TestDatabase.withMigrated { database in
      // A receiver the operator trusts: every checkpoint POSTed to it is kept.
      let received = Mutex<[LogCheckpoint]>([])
      let router = Router()
      router.post("/checkpoints") { request, _ -> HTTPResponse.Status in
        var request = request
        let body = try await request.collectBody(upTo: 1 << 16)
        let checkpoint = try JSONDecoder().decode(
          LogCheckpoint.self, from: Data(body.readableBytesView))
        received.withLock { $0.append(checkpoint) }
        return .noContent
      }
      let receiver = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
      try await receiver.test(.live) { receiverClient in
        let port = try #require(receiverClient.port)
        var configuration = H.configuration(database)
        configuration.apps[0].checkpoints = CheckpointSettings(
          directory: CheckpointDirectory(folder), key: key, interval: .milliseconds(100),
          origin: "tests", webhooks: [URL(string: "http://127.0.0.1:\(port)/checkpoints")!])
        let application = try buildApplication(configuration: configuration, logger: H.logger)
        try await application.test(.ahc(.http)) { client in
          for index in 0..<3 {
            let stored = try await client.execute(
              uri: "/v1/transactions", method: .post, headers: H.authorized,
              body: H.json([
                "signedTransaction": try H.signed.transaction(
                  F.transaction("90\(index)", purchased: 0, expires: 30))
              ]))
            #expect(stored.status == .created)
          }
          let first = try await Self.waitForCheckpoint(client, size: 3)
          let publicKey = key.publicKey
          #expect(first.isSigned(by: publicKey) && first.origin == "tests")
          _ = try await client.execute(
            uri: "/v1/transactions", method: .post, headers: H.authorized,
            body: H.json([
              "signedTransaction": try H.signed.transaction(
                F.transaction("999", purchased: 0, expires: 30))
            ]))
          let second = try await Self.waitForCheckpoint(client, size: 4)
          #expect(second.isSigned(by: publicKey))

          let answer = try await client.execute(
            uri: "/v1/checkpoints/consistency?first=3&second=4", method: .get, headers: H.authorized
          )
          #expect(answer.status == .ok)
          let body = try JSONDecoder().decode(
            [String: JSONValue].self, from: Data(answer.body.readableBytesView))
          let proof = (body["proof"]?.array ?? []).compactMap { value -> [UInt8]? in
            guard case .string(let hex) = value else { return nil }
            return Hex.decode(hex)
          }
          #expect(
            MerkleTree.verifyConsistency(
              first: 3, firstRoot: try #require(first.root), second: 4,
              secondRoot: try #require(second.root), proof: proof))

          // No checkpoint of five events is ever published (the log holds four): a pair that
          // names one is not found. (A size of two or one may be published, depending on when
          // the checkpointer ran between the appends.)
          let unknown = try await client.execute(
            uri: "/v1/checkpoints/consistency?first=3&second=5", method: .get, headers: H.authorized
          )
          #expect(unknown.status == .notFound)
          let reversed = try await client.execute(
            uri: "/v1/checkpoints/consistency?first=4&second=3", method: .get, headers: H.authorized
          )
          #expect(reversed.status == .unprocessableContent)
          let anonymous = try await client.execute(uri: "/v1/checkpoints", method: .get)
          #expect(anonymous.status == .unauthorized)
          // The receiver got the newest checkpoint, signed, as the server published it.
          let deadline = ContinuousClock.now + .seconds(10)
          while received.withLock({ $0.last?.treeSize }) != 4, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
          }
          let forwarded = try #require(received.withLock { $0.last })
          #expect(forwarded == second && forwarded.isSigned(by: publicKey))
        }
      }
    }
  }

  @Test func aServerWithoutADirectorySaysSo() async throws {
    try await H.withInProcessServer { client, _ in
      let answer = try await client.execute(
        uri: "/v1/checkpoints", method: .get, headers: H.authorized)
      #expect(answer.status == .notImplemented)
      #expect(try H.errorCode(answer) == "not_configured")
    }
  }

  /// Polls the newest checkpoint (the server signs every 100 ms) until it covers `size` rows.
  static func waitForCheckpoint(_ client: any TestClientProtocol, size: Int) async throws
    -> LogCheckpoint
  {
    let deadline = ContinuousClock.now + .seconds(15)
    while ContinuousClock.now < deadline {
      let answer = try await client.execute(
        uri: "/v1/checkpoints?limit=1", method: .get, headers: H.authorized)
      #expect(answer.status == .ok)
      struct Listing: Decodable { let checkpoints: [LogCheckpoint] }
      let listing = try JSONDecoder().decode(
        Listing.self, from: Data(answer.body.readableBytesView))
      if let newest = listing.checkpoints.first, newest.treeSize >= size { return newest }
      try await Task.sleep(for: .milliseconds(50))
    }
    throw CheckpointError(.unusableDirectory, "no checkpoint of \(size) rows within 15 s")
  }
}
