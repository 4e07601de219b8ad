/// The body of Upload Message (Retention Messaging API): the text of a retention message,
/// and optionally an image uploaded before with its alternative text.
public struct UploadMessageRequestBody: Hashable, Sendable, Codable {
  /// At most 66 characters (`HeaderTooLongError`).
  public var header: String?
  /// At most 144 characters (`BodyTooLongError`).
  public var body: String?
  public var image: Image?

  public init(header: String? = nil, body: String? = nil, image: Image? = nil) {
    self.header = header
    self.body = body
    self.image = image
  }

  /// An image of the message: only for text messages, not promotional-offer or switch-plan ones.
  public struct Image: Hashable, Sendable, Codable {
    public var imageIdentifier: String?
    /// At most 150 characters (`AltTextTooLongError`).
    public var altText: String?

    public init(imageIdentifier: String? = nil, altText: String? = nil) {
      self.imageIdentifier = imageIdentifier
      self.altText = altText
    }
  }
}
