import NIOCore
import NIOPosix
import Synchronization

/// A TCP relay on loopback between clients and a server that can end a client's connection
/// in the middle of an answer: once armed, it passes on a given number of the server's bytes,
/// closes the client's side (the client reads what was passed on, then end of file, with no
/// error message from the server) and drops the server's side. New connections pass freely.
///
/// It stands where a network or a server's fast shutdown would cut a session, which cannot
/// be timed against one statement from outside a real server.
public final class CuttingRelay: Sendable {
  public let port: Int
  private let server: any Channel
  private let state = Mutex(State())

  private struct State {
    /// Server bytes still to pass on before cutting, when armed.
    var remaining: Int?
    var cuts = 0
  }

  private init(server: any Channel, port: Int) {
    self.server = server
    self.port = port
  }

  /// Listens on 127.0.0.1 (a free port) and relays every connection to `host`:`port`.
  public static func start(to host: String, port targetPort: Int) async throws -> CuttingRelay {
    let group = MultiThreadedEventLoopGroup.singleton
    let box = Mutex<CuttingRelay?>(nil)
    let server = try await ServerBootstrap(group: group)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { client in
        ClientBootstrap(group: client.eventLoop)
          .connect(host: host, port: targetPort)
          .flatMap { upstream in
            let relay = box.withLock { $0 }
            let toClient = Forwarder(to: client, relay: relay)
            let toServer = Forwarder(to: upstream, relay: nil)
            return upstream.pipeline.addHandler(toClient).flatMap {
              client.pipeline.addHandler(toServer)
            }
          }
      }
      .bind(host: "127.0.0.1", port: 0).get()
    guard let port = server.localAddress?.port else {
      try await server.close()
      throw RelayError()
    }
    let relay = CuttingRelay(server: server, port: port)
    box.withLock { $0 = relay }
    return relay
  }

  /// The next `bytes` the server sends to any client are the last that client gets.
  public func cut(after bytes: Int) {
    state.withLock { $0.remaining = bytes }
  }

  /// How many connections have been cut.
  public var cuts: Int { state.withLock { $0.cuts } }

  public func stop() async throws {
    try await server.close()
  }

  /// How much of `count` server bytes to pass on, and whether to cut after them.
  fileprivate func pass(_ count: Int) -> (Int, cut: Bool) {
    state.withLock { state in
      guard let remaining = state.remaining else { return (count, false) }
      guard count >= remaining else {
        state.remaining = remaining - count
        return (count, false)
      }
      state.remaining = nil
      state.cuts += 1
      return (remaining, true)
    }
  }

  struct RelayError: Error {}
}

/// Writes what its channel reads to the other side; closes the other side when its own ends.
/// The server's side carries the relay, which decides where to cut.
private final class Forwarder: ChannelInboundHandler, Sendable {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  let target: any Channel
  let relay: CuttingRelay?

  init(to target: any Channel, relay: CuttingRelay?) {
    self.target = target
    self.relay = relay
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var bytes = Self.unwrapInboundIn(data)
    guard let relay else {
      target.writeAndFlush(bytes, promise: nil)
      return
    }
    let (count, cut) = relay.pass(bytes.readableBytes)
    if let passed = bytes.readSlice(length: count), passed.readableBytes > 0 {
      target.writeAndFlush(passed, promise: nil)
    }
    if cut {
      // What was written reaches the client before the end of file; the rest is dropped.
      target.close(promise: nil)
      context.close(promise: nil)
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    target.close(promise: nil)
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}
