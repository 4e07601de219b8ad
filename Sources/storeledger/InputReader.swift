import Foundation

/// Reads command input from a file or standard input, with errors that say what to do.
enum InputReader {
  struct Failure: Error {
    let message: String
  }

  static func bytes(_ path: String) throws(Failure) -> [UInt8] {
    if path == "-" {
      return Array(FileHandle.standardInput.readDataToEndOfFile())
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw Failure(message: "cannot read \(path); check the path and its permissions")
    }
    return Array(data)
  }

  static func read(_ path: String) throws(Failure) -> String {
    let bytes = try bytes(path)
    guard let text = String(bytes: bytes, encoding: .utf8) else {
      throw Failure(message: "the input is not UTF-8 text; pass the compact JWS itself")
    }
    return text.trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
