import Foundation
import HTTPTypes
import NIOCore

/// Who is asking, as the authentication throttle counts it: the peer's address, or — when the
/// peer is a proxy the operator named as trusted — the client that proxy names in
/// `X-Forwarded-For`. An IPv6 client is its /64 (one subscriber's network: anyone holding one
/// address holds the whole prefix), an IPv4 client its address.
///
/// Only a trusted peer's `X-Forwarded-For` is read: a client talking to the server directly
/// could write any address there and so escape its own lock or lock out someone else's.
struct ClientAddress: Sendable {
  /// The proxies' addresses, canonical (``canonical(_:)``).
  let trustedProxies: Set<String>

  init(trustedProxies: some Sequence<String>) {
    self.trustedProxies = Set(trustedProxies.compactMap(Self.canonical))
  }

  static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

  /// The throttle's subject for a request from `peer` with `headers`; nil without a peer
  /// (the in-process tests) — nothing is counted by address then.
  func subject(peer: SocketAddress?, headers: HTTPFields) -> String? {
    guard let peer else { return nil }
    guard let address = peer.ipAddress.flatMap(Self.canonical) else { return "address local" }
    guard trustedProxies.contains(address) else { return "address " + Self.network(of: address) }
    // The chain reads client, proxy, proxy…; from the right, the first hop that is not one of
    // ours is the client as far as our own proxies can vouch. A chain of nothing but trusted
    // hops (or no header) leaves the leftmost, then the peer itself.
    let hops = headers[values: Self.forwardedFor]
      .flatMap { $0.split(separator: ",") }
      .compactMap { Self.canonical($0.trimmingCharacters(in: .whitespaces)) }
    let client = hops.last { !trustedProxies.contains($0) } ?? hops.first ?? address
    return "address " + Self.network(of: client)
  }

  /// An IP address in one spelling (IPv4 dotted, IPv6 as NIO prints it, an IPv4-mapped IPv6
  /// address as its IPv4); nil when `text` is no IP address.
  static func canonical(_ text: String) -> String? {
    guard let parsed = try? SocketAddress(ipAddress: text, port: 0) else { return nil }
    if case .v6(let v6) = parsed {
      let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
      if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
        return bytes.suffix(4).map(String.init).joined(separator: ".")
      }
    }
    return parsed.ipAddress
  }

  /// The network a throttle counts as one client: an IPv4 address itself, an IPv6 address's
  /// first 64 bits (`2001:db8:1:2::/64`).
  static func network(of address: String) -> String {
    guard address.contains(":"), let parsed = try? SocketAddress(ipAddress: address, port: 0),
      case .v6(let v6) = parsed
    else { return address }
    let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
    let groups = stride(from: 0, to: 8, by: 2).map {
      String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
    }
    return groups.joined(separator: ":") + "::/64"
  }
}
