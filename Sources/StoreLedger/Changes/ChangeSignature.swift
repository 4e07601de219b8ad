import Crypto
import Foundation

/// The `StoreLedger-Signature` header of a webhook delivery: `t=<unix seconds>,v1=<hex>`,
/// the hex being HMAC-SHA256 with the endpoint's secret over `"<t>.<body>"`. Receivers check
/// it over the exact bytes received and reject a stale `t` (a replayed delivery).
public enum ChangeSignature {
  public static let header = "StoreLedger-Signature"

  public static func sign(_ body: [UInt8], secret: String, at time: Date) -> String {
    let seconds = Int64(time.timeIntervalSince1970)
    return "t=\(seconds),v1=\(hex(mac(body, secret: secret, seconds: seconds)))"
  }

  /// True when `header` signs `body` with `secret` and its time is within `tolerance` of
  /// `now`.
  public static func isValid(
    _ header: String, body: [UInt8], secret: String, now: Date = Date(),
    tolerance: TimeInterval = 300
  ) -> Bool {
    var seconds: Int64?
    var signatures: [String] = []
    for part in header.split(separator: ",") {
      let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
      guard pair.count == 2 else { continue }
      if pair[0] == "t" { seconds = Int64(pair[1]) }
      if pair[0] == "v1" { signatures.append(pair[1]) }
    }
    guard let seconds, abs(now.timeIntervalSince1970 - Double(seconds)) <= tolerance else {
      return false
    }
    let message = signed(body, seconds: seconds)
    let key = SymmetricKey(data: Array(secret.utf8))
    return signatures.contains { candidate in
      guard let code = bytes(fromHex: candidate) else { return false }
      return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: message, using: key)
    }
  }

  private static func signed(_ body: [UInt8], seconds: Int64) -> [UInt8] {
    Array("\(seconds).".utf8) + body
  }

  private static func mac(_ body: [UInt8], secret: String, seconds: Int64)
    -> HashedAuthenticationCode<SHA256>
  {
    HMAC<SHA256>.authenticationCode(
      for: signed(body, seconds: seconds), using: SymmetricKey(data: Array(secret.utf8)))
  }

  private static func hex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
  }

  private static func bytes(fromHex text: String) -> [UInt8]? {
    guard text.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
      let next = text.index(index, offsetBy: 2)
      guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
      bytes.append(byte)
      index = next
    }
    return bytes
  }
}
