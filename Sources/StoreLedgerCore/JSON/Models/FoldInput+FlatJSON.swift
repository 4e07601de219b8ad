extension FoldInput {
  /// The fold input of a stored payload, made from the members its facts come from: Apple's
  /// other fields are scanned but not made into values, and no body is kept. Equal in every
  /// fact to `LedgerEvent(storedPayload:recordedAt:key:).compiled`, for folds that only project
  /// (the rebuild); where the payload is not as the log writes it, the whole event is decoded
  /// and its facts taken, so both throw alike on the members read.
  public convenience init(storedPayload payload: UnsafeRawBufferPointer, key: String?) throws {
    let stored = try FlatJSONDecoder().decode(
      LedgerEvent.StoredBody.self, fromBuffer: payload, factsOnly: true)
    self.init(stored.body, key: key, keepingBody: false)
  }
}
