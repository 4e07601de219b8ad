import Foundation

/// One shared decoder: JSONDecoder is thread-safe, and its set-up is not free.
enum JSONDecoding {
  static let decoder = JSONDecoder()
}

extension JSONDecoder {
  func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
    try decode(type, from: Data(bytes))
  }
}
