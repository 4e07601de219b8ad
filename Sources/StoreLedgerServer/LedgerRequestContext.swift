import Hummingbird
import NIOCore

/// The server's request context: Hummingbird's core storage and the address of the peer that
/// sent the request, which the authentication throttle counts failures by (and Hummingbird's
/// tracing records).
public struct LedgerRequestContext: RequestContext, RemoteAddressRequestContext {
  public var coreContext: CoreRequestContextStorage
  /// The connected peer: the client, or the proxy in front of it. Nil in the in-process
  /// router tests, which have no connection.
  public let remoteAddress: SocketAddress?

  public init(source: ApplicationRequestContextSource) {
    self.coreContext = .init(source: source)
    self.remoteAddress = source.channel.remoteAddress
  }
}
