import Foundation

/// Finds a member name that an object of a JSON text holds twice. Readers disagree on such a
/// text (Foundation and Swift keep one member, Python, JavaScript and Go the last), so a body
/// that StoreLedger verifies must not be read otherwise by the systems a relay sends it on to.
/// The text is assumed to be JSON already (the decoder read it); names are compared after
/// their escapes are read, so `"signed\u0050ayload"` is `signedPayload`.
enum DuplicateKeyScan {
  /// The first name held twice by one object, or nil.
  static func duplicate(in bytes: [UInt8]) -> String? {
    var objects: [Set<String>?] = []
    var index = 0
    // After `{` or `,` inside an object the next string is a member name.
    var expectingName = false
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "{"):
        objects.append([])
        expectingName = true
      case UInt8(ascii: "["):
        objects.append(nil)
        expectingName = false
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        if !objects.isEmpty { objects.removeLast() }
        expectingName = false
      case UInt8(ascii: ","):
        expectingName = objects.last.map { $0 != nil } ?? false
      case UInt8(ascii: "\""):
        let start = index
        index += 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
          index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        if expectingName, index < bytes.count, var names = objects.last ?? nil {
          let literal = Data(bytes[start...index])
          let name =
            (try? JSONDecoder().decode(String.self, from: literal))
            ?? String(decoding: literal, as: UTF8.self)
          if names.contains(name) { return name }
          names.insert(name)
          objects[objects.count - 1] = names
        }
        expectingName = false
      default:
        break
      }
      index += 1
    }
    return nil
  }
}
