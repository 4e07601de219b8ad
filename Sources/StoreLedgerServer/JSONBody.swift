import Foundation
import HTTPTypes
import Hummingbird

/// Reading and writing JSON bodies.
enum JSONBody {
  /// The body as `Value`, at most `limit` bytes; a clear `invalid_body` otherwise.
  static func decode<Value: Decodable>(
    _ type: Value.Type, from request: Request, limit: Int, what: String
  ) async throws -> Value {
    var request = request
    let buffer = try await request.collectBody(upTo: limit)
    do {
      return try JSONDecoder().decode(Value.self, from: Data(buffer.readableBytesView))
    } catch {
      throw APIError.invalidBody("the body is not \(what)")
    }
  }

  static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws
    -> Response
  {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let data = try encoder.encode(value)
    return Response(
      status: status, headers: [.contentType: "application/json; charset=utf-8"],
      body: .init(byteBuffer: ByteBuffer(bytes: data)))
  }
}
