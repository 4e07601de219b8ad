import Foundation

/// StoreKit 1 receipts as an app that never moved to StoreKit 2 holds them, naming one of the
/// customer's transactions: an app receipt (PKCS#7 SignedData whose content is the receipt's
/// attribute set, the in-app purchase attribute 17 holding `transaction_identifier` 1703), or
/// a legacy transaction receipt (an old-style property list whose `purchase-info` holds the
/// `transaction-id`). Like Apple's, they are for finding the customer only: the simulator
/// does not sign them, and nothing may trust them.
public enum SimulatedReceipt {
  public static func appReceipt(transactionId: String) -> String {
    let purchase = set([attribute(1703, utf8(transactionId)), attribute(1701, integer(1))])
    let receipt = set([attribute(2, utf8("com.example")), attribute(17, purchase)])
    let data = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01] as [UInt8]
    let signedOID = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02] as [UInt8]
    let encapsulated = tlv(0x30, data + tlv(0xA0, tlv(0x04, receipt)))
    let signedData = tlv(0x30, integer(1) + tlv(0x31, []) + encapsulated + tlv(0x31, []))
    return Data(tlv(0x30, signedOID + tlv(0xA0, signedData))).base64EncodedString()
  }

  public static func legacyTransactionReceipt(transactionId: String) -> String {
    let inner = Data(
      "{\n\t\"transaction-id\" = \"\(transactionId)\";\n\t\"quantity\" = \"1\";\n}".utf8
    )
    .base64EncodedString()
    let outer = "{\n\t\"signature\" = \"AAAA\";\n\t\"purchase-info\" = \"\(inner)\";\n}"
    return Data(outer.utf8).base64EncodedString()
  }

  private static func attribute(_ type: Int, _ value: [UInt8]) -> [UInt8] {
    tlv(0x30, integer(type) + integer(1) + tlv(0x04, value))
  }

  private static func set(_ elements: [[UInt8]]) -> [UInt8] { tlv(0x31, elements.flatMap { $0 }) }
  private static func utf8(_ text: String) -> [UInt8] { tlv(0x0C, Array(text.utf8)) }

  private static func integer(_ value: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    var rest = value
    repeat {
      bytes.insert(UInt8(rest & 0xFF), at: 0)
      rest >>= 8
    } while rest > 0
    if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
    return tlv(0x02, bytes)
  }

  private static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
    let count = content.count
    let length: [UInt8] =
      count < 0x80
      ? [UInt8(count)]
      : count < 0x100 ? [0x81, UInt8(count)] : [0x82, UInt8(count >> 8), UInt8(count & 0xFF)]
    return [tag] + length + content
  }
}
