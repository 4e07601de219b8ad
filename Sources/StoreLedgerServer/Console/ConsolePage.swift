import Foundation
import HTTPTypes
import Hummingbird
import StoreLedger
import StoreLedgerCore

/// The console's page frame: one self-contained HTML document (no external assets, no
/// scripts), with the search form and sign-out on every signed-in page.
struct ConsolePage {
  /// The key the page is shown to (its name and scopes appear in the header).
  @TaskLocal static var grant: APIKeyGrant?

  /// Where the console is served (`/console`, or `/apps/{name}/console`).
  let base: String
  /// The app's name on a server of several apps.
  let app: String?

  /// The page; one with `refreshSeconds` reloads itself that often (the console runs no
  /// scripts).
  func document(
    title: String, signedIn: Bool = true, query: String = "", refreshSeconds: Int? = nil,
    _ main: (inout HTML) -> Void
  ) -> String {
    var html = HTML()
    html.raw("<!doctype html>")
    html.element("html", ["lang": "en"]) { html in
      html.element("head") { html in
        html.void("meta", ["charset": "utf-8"])
        html.void("meta", ["name": "viewport", "content": "width=device-width, initial-scale=1"])
        if let refreshSeconds {
          html.void("meta", ["http-equiv": "refresh", "content": String(refreshSeconds)])
        }
        html.element("title", text: "\(title) · StoreLedger")
        html.element("style") { $0.raw(Self.style) }
      }
      html.element("body") { html in
        html.element("a", ["class": "skip", "href": "#main"], text: "Skip to content")
        html.element("header") { html in header(&html, signedIn: signedIn, query: query) }
        html.element("main", ["id": "main"]) { html in
          html.element("h1", text: title)
          main(&html)
        }
      }
    }
    return html.text
  }

  private func header(_ html: inout HTML, signedIn: Bool, query: String) {
    html.element("nav", ["aria-label": "Console"]) { html in
      html.element(
        "a", ["href": base, "class": "brand"], text: "StoreLedger" + (app.map { " · \($0)" } ?? ""))
      guard signedIn else { return }
      html.element("a", ["href": "\(base)/today", "id": "today-link"], text: "Today")
      html.element("a", ["href": "\(base)/accounts", "id": "accounts-link"], text: "Accounts")
      html.element("a", ["href": "\(base)/revenue", "id": "revenue-link"], text: "Revenue")
      html.element("a", ["href": "\(base)/relays", "id": "relays-link"], text: "Relays")
      html.element("a", ["href": "\(base)/erasures", "id": "erasures-link"], text: "Erasures")
      html.element("form", ["role": "search", "method": "get", "action": "\(base)/search"]) {
        html in
        html.element("label", ["for": "q"], text: "Find a customer")
        html.void(
          "input",
          [
            "id": "q", "name": "q", "type": "search", "value": query, "required": "",
            "placeholder": "appAccountToken, transaction, appTransactionId or order id",
            "size": "44",
          ])
        html.element("button", ["type": "submit"], text: "Search")
      }
      if let grant = Self.grant {
        html.element(
          "span", ["id": "key-scopes"],
          text: "Key \(grant.name): "
            + grant.scopes.sorted().map(\.rawValue).joined(separator: ", "))
      }
      html.element("form", ["method": "post", "action": "\(base)/sign-out"]) { html in
        html.element("button", ["type": "submit"], text: "Sign out")
      }
    }
  }

  /// The document as a response that no cache keeps and no other site may frame or script.
  static func response(_ document: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(
      status: status,
      headers: [
        .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
        .contentSecurityPolicy:
          "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        HTTPField.Name("Referrer-Policy")!: "no-referrer",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
      ],
      body: .init(byteBuffer: ByteBuffer(string: document)))
  }

  /// A server of several apps: which app's console to open.
  static func appList(_ apps: [String]) -> Response {
    let page = ConsolePage(base: "/console", app: nil)
    return response(
      page.document(title: "Choose an app", signedIn: false) { html in
        html.element("ul") { html in
          for app in apps {
            html.element("li") { html in
              html.element("a", ["href": "/apps/\(app)/console"], text: app)
            }
          }
        }
      })
  }

  static func redirect(to location: String, cookie: String? = nil) -> Response {
    var headers: HTTPFields = [.location: location, .cacheControl: "no-store"]
    if let cookie { headers[.setCookie] = cookie }
    return Response(status: .seeOther, headers: headers)
  }

  /// Dark text on white, links underlined, a visible focus ring; status colours come with
  /// patterns and words, never colour alone.
  static let style = """
    :root{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#fff;line-height:1.45}
    body{margin:0}main{padding:1rem 1.5rem 3rem;max-width:78rem}
    h1{font-size:1.5rem;margin:.5rem 0 1rem}h2{font-size:1.2rem;margin:2rem 0 .5rem;border-bottom:1px solid #ccc}
    header{background:#1f2937;color:#fff;padding:.5rem 1.5rem}
    nav{display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
    nav a,nav label{color:#fff}.brand{font-weight:700;text-decoration:none;margin-right:auto}
    nav form{display:flex;gap:.4rem;align-items:center}
    .filters{display:flex;flex-wrap:wrap;gap:.5rem .9rem;align-items:center;margin:0 0 1rem}
    .filters label{font-weight:600;margin-left:.3rem}
    a{color:#0b4f9c}a:focus,button:focus,input:focus,summary:focus,[tabindex]:focus{outline:3px solid #f59e0b;outline-offset:2px}
    input,button{font:inherit;padding:.3rem .5rem}button{cursor:pointer}
    .skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;color:#000;padding:.5rem}
    table{border-collapse:collapse;margin:.5rem 0;width:100%}th,td{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}
    th{background:#f3f4f6}code,pre{font-family:ui-monospace,Menlo,monospace;font-size:.85rem}
    pre{white-space:pre-wrap;word-break:break-all;background:#f8f8f8;padding:.5rem;border:1px solid #ddd;max-height:24rem;overflow:auto}
    .notice{background:#fff7e6;border:1px solid #d97706;padding:.75rem 1rem}.error{background:#fdecec;border:1px solid #b91c1c;padding:.75rem 1rem}
    .yes{color:#14532d;font-weight:600}.no{color:#7f1d1d;font-weight:600}
    .cards{display:flex;gap:1rem;flex-wrap:wrap}.card{border:1px solid #ccc;padding:.75rem 1rem;min-width:12rem}
    .card strong{display:block;font-size:1.6rem}
    .timeline{width:100%;height:auto;max-width:72rem;border:1px solid #ddd}
    .legend{display:flex;gap:1rem;flex-wrap:wrap;list-style:none;padding:0}.legend svg{vertical-align:middle}
    details{margin:.25rem 0}
    figure.chart{margin:1rem 0}.chart-svg{width:100%;height:auto;max-width:72rem;border:1px solid #ddd}
    .axis{font-size:11px;fill:#333}.question{display:flex;gap:.5rem;flex-wrap:wrap;align-items:center}
    """
}
