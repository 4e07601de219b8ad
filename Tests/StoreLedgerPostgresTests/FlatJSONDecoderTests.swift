import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

@testable import StoreLedgerPostgres

/// FlatJSONDecoder decodes what Foundation's JSONDecoder decodes, to equal values, and refuses
/// what it refuses.
@Suite struct FlatJSONDecoderTests {
  /// Both decoders on `json`: equal values, or both throw the same kind of error at the same
  /// coding path.
  func agree<T: Decodable & Equatable>(
    _ type: T.Type, _ json: some Collection<UInt8>,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let data = Data(json)
    let expected = Result { try JSONDecoder().decode(type, from: data) }
    let actual = Result { try FlatJSONDecoder().decode(type, from: Array(json)) }
    switch (expected, actual) {
    case (.success(let expected), .success(let actual)):
      #expect(actual == expected, sourceLocation: sourceLocation)
    case (.failure(let expected), .failure(let actual)):
      #expect(Self.shape(actual) == Self.shape(expected), sourceLocation: sourceLocation)
    case (.success, .failure(let error)):
      Issue.record("FlatJSONDecoder threw \(error)", sourceLocation: sourceLocation)
    case (.failure(let error), .success(let value)):
      Issue.record(
        "FlatJSONDecoder decoded \(value); JSONDecoder threw \(error)",
        sourceLocation: sourceLocation)
    }
  }

  func agree<T: Decodable & Equatable>(
    _ type: T.Type, _ json: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    agree(type, Array(json.utf8), sourceLocation: sourceLocation)
  }

  /// An error's case and coding path (the descriptions differ by design). JSONDecoder gives a
  /// number that does not fit no coding path; FlatJSONDecoder names it, so those compare by
  /// case only.
  static func shape(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "not a DecodingError: \(error)" }
    func path(_ context: DecodingError.Context) -> String {
      context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
        .joined(separator: ".")
    }
    switch error {
    case .typeMismatch(_, let context): return "typeMismatch " + path(context)
    case .valueNotFound(_, let context): return "valueNotFound " + path(context)
    case .keyNotFound(let key, let context):
      return "keyNotFound \(key.stringValue) " + path(context)
    case .dataCorrupted: return "dataCorrupted"
    @unknown default: return "unknown"
    }
  }

  @Test func syntheticStoredFactsDecodeAlike() throws {
    let events = SyntheticLifecycles.events(customers: 400, seed: 7)
    #expect(events.count > 3_000)
    let encoder = JSONEncoder()
    let sorted = JSONEncoder()
    sorted.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    for event in events {
      let compact = try encoder.encode(event.body)
      #expect(try FlatJSONDecoder().decode(LedgerEvent.Body.self, from: compact) == event.body)
      agree(LedgerEvent.Body.self, try sorted.encode(event.body))
    }
  }

  @Test(arguments: [
    "signedNotification.json", "signedConsumptionRequestNotification.json",
    "signedSummaryNotification.json", "signedExternalPurchaseTokenNotification.json",
    "signedExternalPurchaseTokenSandboxNotification.json", "signedRescindConsentNotification.json",
  ])
  func appleNotificationModels(_ file: String) throws {
    agree(ResponseBodyV2DecodedPayload.self, try SharedFixtures.model(file))
  }

  @Test func appleSignedPayloadModels() throws {
    agree(JWSTransactionDecodedPayload.self, try SharedFixtures.model("signedTransaction.json"))
    agree(
      JWSTransactionDecodedPayload.self,
      try SharedFixtures.model("signedTransactionWithRevocation.json"))
    agree(JWSRenewalInfoDecodedPayload.self, try SharedFixtures.model("signedRenewalInfo.json"))
    agree(JWSAppTransactionDecodedPayload.self, try SharedFixtures.model("appTransaction.json"))
    agree(AppData.self, try SharedFixtures.model("appData.json"))
    agree(DecodedRealtimeRequestBody.self, try SharedFixtures.model("decodedRealtimeRequest.json"))
  }

  struct Primitives: Codable, Equatable {
    var text: String?
    var whole: Int64?
    var small: Int32?
    var byte: UInt8?
    var real: Double?
    var single: Float?
    var flag: Bool?
    var list: [Int]?
    var nested: [String: [String?]]?
    var time: Timestamp?
  }

  @Test(arguments: [
    #"{"text": "a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00 ü 😀"}"#,
    #"{"text": ""}"#, #"{"text": null, "whole": null}"#, #"{}"#,
    #"{"whole": -9223372036854775808, "small": 2147483647, "byte": 255}"#,
    #"{"whole": 9223372036854775808}"#, #"{"small": 2147483648}"#, #"{"byte": -1}"#,
    #"{"whole": -0}"#, #"{"whole": 1e3}"#, #"{"whole": 1.5}"#, #"{"whole": 12.0}"#,
    #"{"real": 1.7976931348623157e308, "single": 1.5}"#, #"{"single": 1e300}"#,
    #"{"real": 0.1, "whole": 5}"#, #"{"real": -2.5E-3}"#, #"{"real": 12345678901234567890}"#,
    #"{"time": 1698148900000}"#, #"{"time": 1698148900000.75}"#, #"{"time": "soon"}"#,
    #"{"flag": true, "list": [1, 2, 3], "nested": {"a": ["x", null], "b": []}}"#,
    #"{"flag": 1}"#, #"{"text": 5}"#, #"{"list": [1, "2"]}"#, #"{"list": {}}"#,
    #"{"nested": {"a": [1]}}"#, #"{"nested": []}"#, #"[]"#, #"null"#, #""x""#,
    #" { "text" : "spaced" , "whole" : 3 } "#, #"{"text": "first", "text": "second"}"#,
    #"{"t\u0065xt": "escaped key"}"#, #"{"unknown": {"deep": [[[{}]]]}, "flag": false}"#,
  ])
  func primitivesDecodeAlike(_ json: String) {
    agree(Primitives.self, json)
  }

  @Test(arguments: [
    "", " ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "01", "-", "1.", ".5", "1e",
    "+1", "tru", "nul", "\"abc", "\"\\x\"", "\"\\u12\"", "\"a\u{01}b\"", "[1] 2", "{\"a\":1}}",
    "NaN", "[" + String(repeating: "[", count: 600) + "]",
  ])
  func malformedTextIsRefused(_ json: String) throws {
    let error = try #require(throws: DecodingError.self) {
      try FlatJSONDecoder().decode([String: Int].self, from: Array(json.utf8))
    }
    guard case .dataCorrupted(let context) = error else {
      Issue.record("expected dataCorrupted, got \(error)")
      return
    }
    #expect(context.underlyingError is JSONSyntaxError)
  }

  /// RFC 8259 has no trailing commas; JSONDecoder lets one close an object, FlatJSONDecoder
  /// does not.
  @Test func trailingCommaIsRefused() {
    #expect(throws: Never.self) {
      try JSONDecoder().decode([String: Int].self, from: Data("{\"a\":1,}".utf8))
    }
    #expect(throws: DecodingError.self) {
      try FlatJSONDecoder().decode([String: Int].self, from: Array("{\"a\":1,}".utf8))
    }
  }

  @Test func invalidUTF8AndLoneSurrogatesAreRefused() {
    let bytes: [UInt8] = [0x22, 0xC3, 0x28, 0x22]
    #expect(throws: DecodingError.self) { try FlatJSONDecoder().decode(String.self, from: bytes) }
    for json in [#""\ud83d""#, #""\ude00""#, #""\ud83dx""#, #""\ud83d\u0041""#] {
      #expect(throws: DecodingError.self) { try FlatJSONDecoder().decode(String.self, from: json) }
      #expect(throws: (any Error).self) {
        try JSONDecoder().decode(String.self, from: Data(json.utf8))
      }
    }
  }

  @Test func missingRequiredKeyNamesIt() {
    struct Required: Decodable, Equatable {
      var id: String
      var count: Int
    }
    agree(Required.self, #"{"id": "a"}"#)
    agree(Required.self, #"{"id": "a", "count": null}"#)
    agree(Required.self, #"{"id": "a", "count": 2}"#)
  }

  @Test func enumerationsKeepUnknownRawValues() throws {
    let json = #"{"notificationType": "SOMETHING_NEW", "subtype": "ALSO_NEW", "version": "2.0"}"#
    agree(ResponseBodyV2DecodedPayload.self, json)
    let decoded = try FlatJSONDecoder().decode(ResponseBodyV2DecodedPayload.self, from: json)
    #expect(decoded.notificationType?.rawValue == "SOMETHING_NEW")
    #expect(decoded.notificationType?.isKnown == false)
  }

  @Test func dataReadsBase64LikeJSONDecoder() {
    agree([Data].self, #"["aGVsbG8=", ""]"#)
    agree([Data].self, #"["not base64!"]"#)
    agree([Date].self, #"[0, 700000000.5]"#)
  }
}
