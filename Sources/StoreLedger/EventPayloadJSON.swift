import Foundation
import StoreLedgerCore

/// Builds event payloads from the exact JSON Apple signed by splicing bytes, without parsing
/// and writing it again (Foundation's JSONSerialization took a fifth of a webhook's CPU).
/// Every input was already decoded by the verifier, so it is a valid JSON object.
enum EventPayloadJSON {
  /// `{"<key>": <object>, "<extra key>": "<extra value>", …}`.
  static func wrapping(_ object: [UInt8], as key: String, extras: [(String, String)] = [])
    -> [UInt8]
  {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(object.count + 64)
    bytes += Array("{\(quoted(key)):".utf8)
    bytes += object
    for (name, value) in extras { bytes += Array(",\(quoted(name)):\(quoted(value))".utf8) }
    bytes.append(UInt8(ascii: "}"))
    return bytes
  }

  /// `object` with each string value `"<jws>"` of `field` replaced by `json` (Apple nests
  /// transactions and renewal infos as JWS strings; the event keeps their verified JSON).
  /// Nil when the field does not appear exactly once in compact form: the caller then
  /// composes the slow, general way.
  static func replacing(
    _ replacements: [(field: String, jws: String, json: [UInt8])], in object: [UInt8]
  )
    -> [UInt8]?
  {
    var result = object
    for replacement in replacements {
      let pattern = Array("\(quoted(replacement.field)):\"\(replacement.jws)\"".utf8)
      guard let range = onlyOccurrence(of: pattern, in: result) else { return nil }
      let value = Array("\(quoted(replacement.field)):".utf8) + replacement.json
      result.replaceSubrange(range, with: value)
    }
    return result
  }

  /// A JSON string literal.
  static func quoted(_ text: String) -> String { JSONTextWriter.quoted(text) }

  private static func onlyOccurrence(of pattern: [UInt8], in bytes: [UInt8]) -> Range<Int>? {
    guard let first = firstOccurrence(of: pattern, in: bytes, from: 0) else { return nil }
    if firstOccurrence(of: pattern, in: bytes, from: first.upperBound) != nil { return nil }
    return first
  }

  private static func firstOccurrence(of pattern: [UInt8], in bytes: [UInt8], from start: Int)
    -> Range<Int>?
  {
    guard let head = pattern.first, pattern.count <= bytes.count - start else { return nil }
    var index = start
    let last = bytes.count - pattern.count
    while index <= last {
      if bytes[index] == head, bytes[index..<index + pattern.count].elementsEqual(pattern) {
        return index..<index + pattern.count
      }
      index += 1
    }
    return nil
  }
}
