import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Sends the newest signed checkpoint to systems the operator trusts (a transparency store, an
/// auditor's inbox) as `POST` of its JSON, so a copy exists outside the database's reach the
/// moment it is signed. A receiver that did not answer 2xx gets the newest one again next
/// round; each receiver is sent a tree size once it answered 2xx for it. The checkpoint is its
/// own proof (signed), so no secret goes with it.
public actor CheckpointForwarder {
  let urls: [URL]
  let http: HTTPClient
  let timeout: Duration
  let logger: Logger
  private var delivered: [URL: Int] = [:]

  public init(
    urls: [URL], http: HTTPClient = .shared, timeout: Duration = .seconds(10), logger: Logger
  ) {
    self.urls = urls
    self.http = http
    self.timeout = timeout
    self.logger = logger
  }

  /// Sends `checkpoint` to every receiver that has not taken it (or a larger one); returns how
  /// many took it now.
  @discardableResult
  public func forward(_ checkpoint: LogCheckpoint) async -> Int {
    var taken = 0
    for url in urls where (delivered[url] ?? -1) < checkpoint.treeSize {
      var request = HTTPClientRequest(url: url.absoluteString)
      request.method = .POST
      request.headers.add(name: "Content-Type", value: "application/json")
      request.headers.add(name: "User-Agent", value: "StoreLedger")
      request.body = .bytes(ByteBuffer(bytes: checkpoint.encoded()))
      do {
        let response = try await http.execute(
          request, timeout: .milliseconds(Int64(timeout.components.seconds) * 1000))
        _ = try? await response.body.collect(upTo: 64 * 1024)
        if (200..<300).contains(response.status.code) {
          delivered[url] = checkpoint.treeSize
          taken += 1
        } else {
          logger.warning(
            "a checkpoint receiver refused; sending again next round",
            metadata: ["receiver": "\(url.host ?? "?")", "status": "\(response.status.code)"])
        }
      } catch {
        logger.warning(
          "a checkpoint receiver did not answer; sending again next round",
          metadata: ["receiver": "\(url.host ?? "?")"])
      }
    }
    return taken
  }
}
