import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One plain HTTP request, for poking at a server the tests started as a process.
enum HTTPProbe {
  struct Answer {
    var status: Int
    var body: Data
  }

  static func get(_ url: String, bearer: String? = nil) async throws -> Answer {
    var request = URLRequest(url: URL(string: url)!)
    request.timeoutInterval = 30
    if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
    let (body, response) = try await URLSession.shared.data(for: request)
    return Answer(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: body)
  }

  /// A POST whose redirects are followed (cookies set on the way are sent on).
  static func post(_ url: String, body: String, contentType: String) async throws -> Answer {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = "POST"
    request.timeoutInterval = 30
    request.setValue(contentType, forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(body.utf8)
    let (data, response) = try await URLSession.shared.data(for: request)
    return Answer(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data)
  }
}
