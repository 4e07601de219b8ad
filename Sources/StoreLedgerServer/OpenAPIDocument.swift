import Foundation
import HTTPTypes

/// The API's OpenAPI document, shipped as a resource of this module.
enum OpenAPIDocument {
  static func data() throws -> Data {
    guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json") else {
      throw APIError(.internalServerError, "internal_error", "the OpenAPI document is missing")
    }
    return try Data(contentsOf: url)
  }
}
