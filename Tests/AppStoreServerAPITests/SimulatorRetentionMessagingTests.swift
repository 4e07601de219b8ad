import AppStoreSimulator
import NIOHTTP1
import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

@testable import AppStoreServerAPI

/// The Retention Messaging API as Apple answers it: images and messages under UUIDs of the
/// developer's, Apple's error codes for every rule (lengths, duplicates, unknown or in-use
/// identifiers, locales, products), lists, and default messages per product and locale.
@Suite struct SimulatorRetentionMessagingTests {
  typealias H = SimulatorHarness
  static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
  static let image = "6f0c4a9e-1c2d-4e5f-8a9b-0c1d2e3f4a5b"
  static let message = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
  static let base = "/inApps/v1/messaging"

  static func refused(
    _ code: APIErrorCode, _ call: () async throws -> NoContent
  ) async -> Bool {
    do {
      _ = try await call()
      return false
    } catch let error as AppStoreAPIError {
      return error.apiErrorCode == code && error.httpStatus == Int(code.rawValue / 10_000)
    } catch {
      return false
    }
  }

  static func json(_ value: some Encodable) throws -> Data { try JSONEncoder().encode(value) }

  @Test func imagesMessagesAndDefaultsFollowApplesRules() async throws {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: H.bundleId, appAppleId: 1_234_567_890), signer: H.pki,
      now: LedgerFixtures.t(40))
    try await H.withClient(store) { client, _ in
      func put(_ path: String, _ body: Data) async throws -> NoContent {
        try await client.send(Self.base + path, query: [], method: .PUT, body: body)
      }
      func delete(_ path: String) async throws -> NoContent {
        try await client.send(Self.base + path, query: [], method: .DELETE, body: nil)
      }
      // Images: a PNG under a UUID, once.
      #expect(
        await Self.refused(.invalidImage) {
          try await put("/image/\(Self.image)", Data("GIF89a".utf8))
        })
      #expect(
        await Self.refused(.invalidImage) { try await put("/image/not-a-uuid", Data(Self.png)) })
      _ = try await put("/image/\(Self.image)", Data(Self.png))
      #expect(
        await Self.refused(.imageAlreadyExists) {
          try await put("/image/\(Self.image)", Data(Self.png))
        })
      let images: JSONValue = try await client.get(Self.base + "/image/list", query: [])
      #expect(
        images
          == .object([
            "imageIdentifiers": .array([
              .object(["imageIdentifier": .string(Self.image), "imageState": .string("APPROVED")])
            ])
          ]))

      // Messages: lengths, the image must exist, once.
      let text = UploadMessageRequestBody(
        header: "Before you go", body: "Stay for half price next month.",
        image: .init(imageIdentifier: Self.image, altText: "A gift"))
      var long = text
      long.header = String(repeating: "h", count: 67)
      #expect(
        await Self.refused(.headerTooLong) {
          try await put("/message/\(Self.message)", try Self.json(long))
        })
      long = text
      long.body = String(repeating: "b", count: 145)
      #expect(
        await Self.refused(.bodyTooLong) {
          try await put("/message/\(Self.message)", try Self.json(long))
        })
      long = text
      long.image?.altText = String(repeating: "a", count: 151)
      #expect(
        await Self.refused(.altTextTooLong) {
          try await put("/message/\(Self.message)", try Self.json(long))
        })
      long = text
      long.image?.imageIdentifier = UUID().uuidString
      #expect(
        await Self.refused(.imageNotFound) {
          try await put("/message/\(Self.message)", try Self.json(long))
        })
      _ = try await put("/message/\(Self.message)", try Self.json(text))
      #expect(
        await Self.refused(.messageAlreadyExists) {
          try await put("/message/\(Self.message)", try Self.json(text))
        })
      #expect(await Self.refused(.imageInUse) { try await delete("/image/\(Self.image)") })
      let messages: JSONValue = try await client.get(Self.base + "/message/list", query: [])
      #expect(
        messages
          == .object([
            "messageIdentifiers": .array([
              .object([
                "messageIdentifier": .string(Self.message), "messageState": .string("APPROVED"),
              ])
            ])
          ]))

      // Default messages: a known product, a locale, an existing message.
      let product = try #require(SimulatedProducts.subscriptionProducts.first?.id)
      let configuration = try Self.json(
        DefaultConfigurationRequest(messageIdentifier: Self.message))
      #expect(
        await Self.refused(.invalidProductId) {
          try await put("/default/no.such.product/en-US", configuration)
        })
      #expect(
        await Self.refused(.invalidLocale) {
          try await put("/default/\(product)/English", configuration)
        })
      #expect(
        await Self.refused(.messageNotFound) {
          try await put(
            "/default/\(product)/en-US",
            try Self.json(DefaultConfigurationRequest(messageIdentifier: UUID().uuidString)))
        })
      _ = try await put("/default/\(product)/en-US", configuration)
      let configured: DefaultConfigurationRequest = try await client.get(
        Self.base + "/default/\(product)/en-US", query: [])
      #expect(configured.messageIdentifier == Self.message)
      _ = try await delete("/default/\(product)/en-US")
      #expect(
        await Self.refused(.messageNotFound) { try await delete("/default/\(product)/en-US") })

      // Deleting: the message, then its image; unknown identifiers are Apple's 404s.
      _ = try await delete("/message/\(Self.message)")
      #expect(await Self.refused(.messageNotFound) { try await delete("/message/\(Self.message)") })
      _ = try await delete("/image/\(Self.image)")
      #expect(await Self.refused(.imageNotFound) { try await delete("/image/\(Self.image)") })
    }
  }
}
