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
    guard let parsed = (try? SocketAddress(ipAddress: text, port: 0))?.ipAddress else {
      return nil
    }
    // NIO prints an IPv4-mapped address as `::ffff:a.b.c.d`.
    if parsed.lowercased().hasPrefix("::ffff:"), parsed.contains(".") {
      return String(parsed.dropFirst("::ffff:".count))
    }
    return parsed
  }

  /// The network a throttle counts as one client: an IPv4 address itself, an IPv6 address's
  /// first 64 bits (`2001:db8:1:2::/64`). `address` is canonical; its groups are read from
  /// the text (the socket's own bytes are a C type this module cannot see in every build).
  static func network(of address: String) -> String {
    guard address.contains(":") else { return address }
    let halves = address.components(separatedBy: "::")
    let head = halves[0].split(separator: ":").map(String.init)
    let tail = halves.count > 1 ? halves[1].split(separator: ":").map(String.init) : []
    let groups = head + Array(repeating: "0", count: max(0, 8 - head.count - tail.count)) + tail
    let first = groups.prefix(4).map { String(UInt16($0, radix: 16) ?? 0, radix: 16) }
    return first.joined(separator: ":") + "::/64"
  }
}
