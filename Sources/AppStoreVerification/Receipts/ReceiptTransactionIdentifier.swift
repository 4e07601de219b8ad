import Foundation
import SwiftASN1

/// Finds a transaction identifier in StoreKit 1 receipts, so that a customer who only has an
/// old receipt can be looked up with Get Transaction History (which returns signed data).
///
/// This reads identifiers only and verifies nothing: never grant anything from a receipt
/// itself; fetch and verify the customer's signed transactions with the identifier instead.
public enum ReceiptTransactionIdentifier {
  /// The `transaction_identifier` (field 1703) of the first in-app purchase in a base64 app
  /// receipt (PKCS#7, BER with indefinite lengths), or nil when the receipt holds no purchase.
  public static func fromAppReceipt(_ base64: String) throws(VerificationError) -> String? {
    guard let der = Base64Bytes.decode(Self.compacted(base64), alphabet: .standardPadded) else {
      throw malformed("the app receipt is not base64")
    }
    do {
      let attributes = try receiptAttributes(in: try BER.parse(der))
      for (type, value) in attributes where type == inAppPurchase {
        for (inAppType, inAppValue) in try attributeSet(BER.parse(value))
        where inAppType == transactionIdentifier {
          return try stringValue(BER.parse(inAppValue))
        }
      }
      return nil
    } catch let error as VerificationError {
      throw error
    } catch {
      throw malformed("the app receipt is not a PKCS#7 receipt")
    }
  }

  /// The `transaction-id` inside the `purchase-info` of a base64 StoreKit 1 transaction
  /// receipt (an old-style property list), or nil when there is none.
  public static func fromLegacyTransactionReceipt(_ base64: String) throws(VerificationError)
    -> String?
  {
    guard let outer = Base64Bytes.decode(Self.compacted(base64), alphabet: .standardPadded),
      let purchaseInfo = propertyListStrings(String(decoding: outer, as: UTF8.self))[
        "purchase-info"]
    else { throw malformed("the transaction receipt has no purchase-info") }
    guard let inner = Base64Bytes.decode(purchaseInfo, alphabet: .standardPadded) else {
      throw malformed("the purchase-info of the transaction receipt is not base64")
    }
    return propertyListStrings(String(decoding: inner, as: UTF8.self))["transaction-id"]
  }

  private static let inAppPurchase = 17
  private static let transactionIdentifier = 1703

  private static func malformed(_ message: String) -> VerificationError {
    VerificationError(.malformedReceipt, message)
  }

  /// Receipts arrive wrapped over several lines.
  private static func compacted(_ base64: String) -> String {
    base64.filter { !$0.isWhitespace }
  }

  /// ContentInfo → SignedData → encapContentInfo → eContent: the receipt's attribute set.
  private static func receiptAttributes(in contentInfo: ASN1Node) throws -> [(Int, [UInt8])] {
    let signedData = try explicitContent(of: child(1, of: contentInfo))
    let encapsulated = try child(2, of: signedData)
    let content = try octets(of: explicitContent(of: child(1, of: encapsulated)))
    return try attributeSet(BER.parse(content))
  }

  /// A SET of `SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
  private static func attributeSet(_ node: ASN1Node) throws -> [(Int, [UInt8])] {
    guard case .constructed(let attributes) = node.content else {
      throw ASN1Error.invalidASN1Object(reason: "set")
    }
    return try attributes.map { attribute in
      let type = try Int(derEncoded: child(0, of: attribute))
      return (type, try octets(of: child(2, of: attribute)))
    }
  }

  private static func child(_ index: Int, of node: ASN1Node) throws -> ASN1Node {
    guard case .constructed(let children) = node.content else {
      throw ASN1Error.invalidASN1Object(reason: "expected a constructed node")
    }
    guard let child = children.dropFirst(index).first(where: { _ in true }) else {
      throw ASN1Error.invalidASN1Object(reason: "missing element")
    }
    return child
  }

  /// The single element of an explicitly tagged `[0]`.
  private static func explicitContent(of node: ASN1Node) throws -> ASN1Node {
    try child(0, of: node)
  }

  /// The bytes of an OCTET STRING, joining the chunks of BER's constructed form.
  private static func octets(of node: ASN1Node) throws -> [UInt8] {
    switch node.content {
    case .primitive(let bytes): return Array(bytes)
    case .constructed(let chunks): return try chunks.flatMap { try octets(of: $0) }
    }
  }

  /// A UTF8String or IA5String value.
  private static func stringValue(_ node: ASN1Node) throws -> String {
    guard case .primitive(let bytes) = node.content,
      node.identifier == .utf8String || node.identifier == .ia5String
    else { throw ASN1Error.invalidASN1Object(reason: "expected a string") }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `"key" = "value";` pairs of an old-style property list, unescaped values excepted.
  private static func propertyListStrings(_ text: String) -> [String: String] {
    var pairs: [String: String] = [:]
    for match in text.matches(of: /"([^"]+)"\s*=\s*"([^"]*)"\s*;/) {
      pairs[String(match.output.1)] = String(match.output.2)
    }
    return pairs
  }
}
