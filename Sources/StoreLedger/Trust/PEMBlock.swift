import Foundation

/// PEM armour (RFC 7468) for the two key kinds, and the fixed DER prefixes of Ed25519 keys
/// (RFC 8410), which are short enough not to need an ASN.1 parser.
enum PEMBlock {
  static let ed25519PrivatePrefix: [UInt8] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
  ]
  static let ed25519PublicPrefix: [UInt8] = [
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
  ]

  /// The first PEM block's label and bytes.
  static func read(_ text: String, what: String) throws(CheckpointError) -> (String, [UInt8]) {
    let lines = text.split(whereSeparator: \.isNewline).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    guard let begin = lines.firstIndex(where: { $0.hasPrefix("-----BEGIN ") }),
      lines[begin].hasSuffix("-----")
    else {
      throw CheckpointError(.unreadableKey, "the \(what) file holds no PEM block (-----BEGIN …)")
    }
    let label = String(lines[begin].dropFirst(11).dropLast(5))
    guard let end = lines[begin...].firstIndex(of: "-----END \(label)-----") else {
      throw CheckpointError(.unreadableKey, "the \(what)'s PEM block \(label) has no END line")
    }
    let body = lines[(begin + 1)..<end].filter { !$0.contains(":") }.joined()
    guard let der = Data(base64Encoded: body), !der.isEmpty else {
      throw CheckpointError(.unreadableKey, "the \(what)'s PEM block \(label) is not base64")
    }
    return (label, Array(der))
  }

  static func write(_ label: String, _ der: [UInt8]) -> String {
    let base64 = Data(der).base64EncodedString()
    var lines = ["-----BEGIN \(label)-----"]
    var index = base64.startIndex
    while index < base64.endIndex {
      let end = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
      lines.append(String(base64[index..<end]))
      index = end
    }
    lines.append("-----END \(label)-----")
    return lines.joined(separator: "\n") + "\n"
  }
}
