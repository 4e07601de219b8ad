import Foundation
import Hummingbird
import StoreLedger
import StoreLedgerCore

/// The app's signed checkpoints as published (`GET /v1/checkpoints`), and the RFC 6962
/// consistency proof between two of them (`GET /v1/checkpoints/consistency`), so a watcher
/// that keeps only checkpoints can check the log only ever grew. Everything is read from the
/// checkpoint directory, never from the database: the answers are what was signed.
struct CheckpointsController: Sendable {
  let directory: CheckpointDirectory?

  struct Listing: Encodable {
    let checkpoints: [LogCheckpoint]
  }

  struct Consistency: Encodable {
    let first: Int
    let second: Int
    /// Hex, in RFC 6962 order.
    let proof: [String]
  }

  func register(on group: RouterGroup<LedgerRequestContext>) {
    group.get("/v1/checkpoints") { request, _ in
      let directory = try self.configured()
      let limit = try Self.integer(request.uri.queryParameters.get("limit"), "limit") ?? 100
      guard (1...1000).contains(limit) else {
        throw LedgerError(.invalidRequest, "`limit` is 1 to 1000")
      }
      let checkpoints = try Self.read { try directory.checkpoints() }
      return try JSONBody.response(
        Listing(checkpoints: checkpoints.reversed().prefix(limit).map(\.checkpoint)))
    }
    group.get("/v1/checkpoints/consistency") { request, _ in
      let directory = try self.configured()
      let parameters = request.uri.queryParameters
      guard let first = try Self.integer(parameters.get("first"), "first"),
        let second = try Self.integer(parameters.get("second"), "second")
      else {
        throw LedgerError(.invalidRequest, "give `first` and `second`: two checkpoints' tree sizes")
      }
      guard first >= 0, second >= 0 else {
        throw LedgerError(.invalidRequest, "tree sizes are not negative")
      }
      // Each size fits the document; together they ask for the impossible.
      guard first <= second else {
        throw APIError(
          .unprocessableContent, "invalid_request",
          "`first` is the earlier checkpoint's size: at most `second`")
      }
      let sizes = Set(try Self.read { try directory.checkpoints() }.map(\.checkpoint.treeSize))
      for size in [first, second] where !sizes.contains(size) {
        throw LedgerError(.notFound, "no published checkpoint has tree size \(size)")
      }
      let leaves = try Self.read { try directory.leaves() }
      guard second <= leaves.count else {
        throw LedgerError(
          .notFound, "the directory's leaves end at \(leaves.count), before \(second)")
      }
      let proof = MerkleTree.consistencyProof(
        first: first, leaves[..<second].map(MerkleTree.leafHash)[...])
      return try JSONBody.response(
        Consistency(first: first, second: second, proof: proof.map(Hex.encode)))
    }
  }

  private func configured() throws -> CheckpointDirectory {
    guard let directory else {
      throw LedgerError(
        .notConfigured,
        "this server publishes no checkpoints: start it with --checkpoint-dir (and "
          + "--checkpoint-key on the server that signs)")
    }
    return directory
  }

  private static func read<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as CheckpointError {
      throw LedgerError(.notConfigured, "the checkpoint directory cannot be served: \(error.code)")
    }
  }

  private static func integer(_ text: String?, _ name: String) throws -> Int? {
    guard let text else { return nil }
    guard let value = Int(text) else {
      throw LedgerError(.invalidRequest, "`\(name)` is a whole number")
    }
    return value
  }
}
