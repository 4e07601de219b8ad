/// HTML text built by appending. Text and attribute values are always escaped; only markup
/// written in this module goes in raw.
struct HTML {
  private(set) var text = ""

  init() { text.reserveCapacity(8192) }

  static func escape(_ value: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(value.utf8.count)
    for character in value.unicodeScalars {
      switch character {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "'": escaped += "&#39;"
      default: escaped.unicodeScalars.append(character)
      }
    }
    return escaped
  }

  mutating func raw(_ markup: String) { text += markup }

  mutating func text(_ value: String) { text += Self.escape(value) }

  /// `<tag attributes>` + body + `</tag>`; attributes with a nil value are left out.
  mutating func element(
    _ tag: String, _ attributes: KeyValuePairs<String, String?> = [:],
    _ body: (inout HTML) -> Void = { _ in }
  ) {
    open(tag, attributes)
    body(&self)
    text += "</\(tag)>"
  }

  mutating func element(
    _ tag: String, _ attributes: KeyValuePairs<String, String?> = [:], text content: String
  ) {
    element(tag, attributes) { $0.text(content) }
  }

  /// An element without content (`<input …>`).
  mutating func void(_ tag: String, _ attributes: KeyValuePairs<String, String?>) {
    open(tag, attributes)
  }

  /// A table with a caption (when given), column headers, and a row written per item.
  mutating func table<Row>(
    caption: String?, headers: [String], rows: [Row], id: String? = nil,
    _ row: (inout HTML, Row) -> Void
  ) {
    element("table", ["id": id]) { html in
      if let caption { html.element("caption", text: caption) }
      html.element("thead") { html in
        html.element("tr") { html in
          for header in headers { html.element("th", ["scope": "col"], text: header) }
        }
      }
      html.element("tbody") { html in
        for item in rows { html.element("tr") { html in row(&html, item) } }
      }
    }
  }

  /// A row's cell of text.
  mutating func cell(_ text: String) { element("td", text: text) }

  /// An SVG shape without content (`<line … />`): inside SVG an element not closed this way
  /// would hold everything after it.
  mutating func shape(_ tag: String, _ attributes: KeyValuePairs<String, String?>) {
    open(tag, attributes, closing: " />")
  }

  private mutating func open(
    _ tag: String, _ attributes: KeyValuePairs<String, String?>, closing: String = ">"
  ) {
    text += "<\(tag)"
    for (name, value) in attributes {
      guard let value else { continue }
      text += " \(name)=\"\(Self.escape(value))\""
    }
    text += closing
  }
}
