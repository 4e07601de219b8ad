import AppStoreServerAPI
import Foundation

/// What a developer uploaded through the Retention Messaging API, and Apple's rules for it:
/// identifiers are UUIDs chosen by the developer and never reused while they exist; a
/// message's header, body and alternative text have maximum lengths; an image a message
/// uses cannot be deleted; a default message names an approved message for a product and a
/// locale. Apple reviews what is uploaded (`PENDING`, then `APPROVED` or `REJECTED`); the
/// simulator approves at once, so every state it answers is `APPROVED`.
struct RetentionMessages {
  typealias Failure = APIErrorResponse.Failure

  /// Apple's limit of messages per app.
  static let maximumMessages = 2_000
  static let maximumHeader = 66
  static let maximumBody = 144
  static let maximumAltText = 150
  static let approved = "APPROVED"

  private(set) var images: [String: String] = [:]
  private(set) var messages: [String: UploadMessageRequestBody] = [:]
  /// Message identifiers by `productId` and locale.
  private(set) var defaults: [DefaultKey: String] = [:]

  struct DefaultKey: Hashable {
    var productId: String
    var locale: String
  }

  mutating func uploadImage(_ id: String, png: [UInt8]) throws(Failure) {
    try Self.checkIdentifier(id, invalid: .invalidImage)
    // A PNG file starts with its 8-byte signature; anything else is not an image Apple takes.
    guard png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
      throw Failure(.invalidImage, "The image is invalid.")
    }
    guard images[id] == nil else {
      throw Failure(.imageAlreadyExists, "The image identifier already exists.")
    }
    images[id] = Self.approved
  }

  mutating func deleteImage(_ id: String) throws(Failure) {
    guard images[id] != nil else {
      throw Failure(.imageNotFound, "The image identifier was not found.")
    }
    guard !messages.values.contains(where: { $0.image?.imageIdentifier == id }) else {
      throw Failure(.imageInUse, "The image is in use by a message.")
    }
    images[id] = nil
  }

  mutating func uploadMessage(_ id: String, _ body: UploadMessageRequestBody) throws(Failure) {
    try Self.checkIdentifier(id, invalid: .generalBadRequest)
    if (body.header ?? "").count > Self.maximumHeader {
      throw Failure(.headerTooLong, "The header is too long.")
    }
    if (body.body ?? "").count > Self.maximumBody {
      throw Failure(.bodyTooLong, "The body is too long.")
    }
    if let image = body.image {
      if (image.altText ?? "").count > Self.maximumAltText {
        throw Failure(.altTextTooLong, "The alternative text is too long.")
      }
      guard let imageId = image.imageIdentifier, images[imageId] != nil else {
        throw Failure(.imageNotFound, "The image identifier was not found.")
      }
    }
    guard messages[id] == nil else {
      throw Failure(.messageAlreadyExists, "The message identifier already exists.")
    }
    guard messages.count < Self.maximumMessages else {
      throw Failure(.maximumNumberOfMessagesReached, "The maximum number of messages is reached.")
    }
    messages[id] = body
  }

  mutating func deleteMessage(_ id: String) throws(Failure) {
    guard messages[id] != nil else {
      throw Failure(.messageNotFound, "The message identifier was not found.")
    }
    messages[id] = nil
    defaults = defaults.filter { $0.value != id }
  }

  mutating func configureDefault(
    _ key: DefaultKey, message: String?, knownProduct: Bool
  ) throws(Failure) {
    guard knownProduct else { throw Failure(.invalidProductId, "The product id is invalid.") }
    try Self.checkLocale(key.locale)
    guard let message, messages[message] != nil else {
      throw Failure(.messageNotFound, "The message identifier was not found.")
    }
    defaults[key] = message
  }

  func defaultMessage(_ key: DefaultKey) throws(Failure) -> DefaultConfigurationRequest {
    try Self.checkLocale(key.locale)
    guard let message = defaults[key] else {
      throw Failure(.messageNotFound, "No default message is configured.")
    }
    return DefaultConfigurationRequest(messageIdentifier: message)
  }

  mutating func deleteDefault(_ key: DefaultKey) throws(Failure) {
    try Self.checkLocale(key.locale)
    guard defaults.removeValue(forKey: key) != nil else {
      throw Failure(.messageNotFound, "No default message is configured.")
    }
  }

  func list(_ kind: RetentionContentList.Kind) -> RetentionContentList {
    let states = kind == .image ? images : messages.mapValues { _ in Self.approved }
    return RetentionContentList(
      kind: kind,
      items: states.sorted { $0.key < $1.key }.map { .init(identifier: $0.key, state: $0.value) })
  }

  private static func checkIdentifier(_ id: String, invalid: APIErrorCode) throws(Failure) {
    guard UUID(uuidString: id) != nil else {
      throw Failure(invalid, "The identifier is not a UUID.")
    }
  }

  /// A language, optionally with a region: `en`, `en-US`, `zh-Hans`.
  private static func checkLocale(_ locale: String) throws(Failure) {
    let parts = locale.split(separator: "-", omittingEmptySubsequences: false)
    let valid =
      (1...2).contains(parts.count) && (2...3).contains(parts[0].count)
      && parts[0].allSatisfy { $0.isASCII && $0.isLowercase }
      && parts.dropFirst().allSatisfy { (2...4).contains($0.count) && $0.allSatisfy(\.isASCII) }
    guard valid else { throw Failure(.invalidLocale, "The locale is invalid.") }
  }
}
