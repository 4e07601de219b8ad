import Foundation
import StoreLedger
import StoreLedgerCore

/// One subscription drawn over time as SVG, on the server: its status as bands (colour,
/// pattern and word, so it reads without colour), its periods, and its events as marks that
/// show what they are on hover (`<title>`) and on keyboard focus.
struct SubscriptionTimeline {
  struct Band: Equatable {
    var from: Timestamp
    var until: Timestamp
    var status: Int32
  }

  struct Mark {
    var at: Timestamp
    var label: String
    var kind: Kind
    enum Kind { case event, refund, upgrade, renewalExtension }
  }

  let id: Int
  let originalTransactionId: String
  let bands: [Band]
  let periods: [(from: Timestamp, until: Timestamp?, label: String)]
  let marks: [Mark]
  let start: Timestamp
  let end: Timestamp
  /// The page's moment and the present, each drawn as a labelled line (one when they agree).
  var moment: Timestamp? = nil
  var now: Timestamp? = nil

  static let names: [Int32: String] = [
    1: "Active", 2: "Expired", 3: "Billing retry", 4: "Grace period", 5: "Revoked",
  ]
  static let colours: [Int32: String] = [
    1: "#1b7f3b", 2: "#6b7280", 3: "#b45309", 4: "#7c3aed", 5: "#b91c1c",
  ]

  /// The status of the chain at every stable interval from its first purchase to `end`.
  static func bands(
    of chain: String, in view: LedgerView, from start: Timestamp, to end: Timestamp
  ) -> [Band] {
    var bands: [Band] = []
    var time = start
    for _ in 0..<2000 where time < end {
      let until = min(view.stableInterval(around: time).until ?? end, end)
      let next = until > time ? until : Timestamp(milliseconds: time.milliseconds + 1)
      if let status = view.snapshot(at: time).subscriptions.first(where: {
        $0.originalTransactionId == chain
      })?.status {
        if var last = bands.last, last.status == status, last.until == time {
          last.until = next
          bands[bands.count - 1] = last
        } else {
          bands.append(Band(from: time, until: next, status: status))
        }
      }
      time = next
    }
    return bands
  }

  // MARK: Drawing

  private static let width = 1000.0
  private static let margin = 12.0

  private func x(_ time: Timestamp) -> Double {
    let span = Double(max(end.milliseconds - start.milliseconds, 1))
    let share = Double(time.milliseconds - start.milliseconds) / span
    return Self.margin + min(max(share, 0), 1) * (Self.width - 2 * Self.margin)
  }

  func svg(into html: inout HTML) {
    let label =
      "Timeline of subscription \(originalTransactionId): "
      + bands.map { "\(Self.names[$0.status] ?? "\($0.status)") from \(Self.day($0.from))" }
      .joined(separator: ", ")
    html.element(
      "svg",
      [
        "class": "timeline", "viewBox": "0 0 \(Int(Self.width)) 150", "role": "group",
        "aria-label": label, "xmlns": "http://www.w3.org/2000/svg",
      ]
    ) { html in
      patterns(into: &html)
      for band in bands { draw(band, into: &html) }
      html.element("text", ["x": "\(Self.margin)", "y": "78", "class": "lane"], text: "periods")
      for (index, period) in periods.enumerated() { draw(period, row: index % 2, into: &html) }
      for mark in marks { draw(mark, into: &html) }
      if let now, now != moment { line(at: now, label: "now", kind: "now", into: &html) }
      if let moment { line(at: moment, label: "this moment", kind: "moment", into: &html) }
      axis(into: &html)
    }
  }

  /// A vertical line across the bands at `time`, named for screen readers and hover.
  private func line(at time: Timestamp, label: String, kind: String, into html: inout HTML) {
    guard time >= start, time <= end else { return }
    let at = Self.number(x(time))
    html.element(
      "g",
      [
        "class": "marker \(kind)", "role": "img", "tabindex": "0",
        "aria-label": "\(label), \(Self.instant(time))",
      ]
    ) { html in
      html.element("title", text: "\(label), \(Self.instant(time))")
      html.shape(
        "line",
        [
          "x1": at, "x2": at, "y1": "2", "y2": "128", "stroke": kind == "now" ? "#555" : "#000",
          "stroke-width": "2", "stroke-dasharray": kind == "now" ? "4 3" : "none",
        ])
      html.element("text", ["x": at, "y": "140", "class": "marker-label"], text: label)
    }
  }

  private func patterns(into html: inout HTML) {
    html.element("defs") { html in
      for status in Int32(1)...5 {
        let colour = Self.colours[status] ?? "#000"
        html.element(
          "pattern",
          [
            "id": "p\(id)-\(status)", "width": "8", "height": "8",
            "patternUnits": "userSpaceOnUse",
          ]
        ) { html in
          html.shape("rect", ["width": "8", "height": "8", "fill": colour])
          html.raw(Self.texture(status))
        }
      }
    }
  }

  /// A texture per status over its colour: none, diagonal, dots, horizontal, cross.
  static func texture(_ status: Int32) -> String {
    switch status {
    case 2: "<path d=\"M0 8L8 0\" stroke=\"#fff\" stroke-width=\"1.5\"/>"
    case 3: "<circle cx=\"4\" cy=\"4\" r=\"1.6\" fill=\"#fff\"/>"
    case 4: "<path d=\"M0 4H8\" stroke=\"#fff\" stroke-width=\"1.5\"/>"
    case 5: "<path d=\"M0 0L8 8M8 0L0 8\" stroke=\"#fff\" stroke-width=\"1.2\"/>"
    default: ""
    }
  }

  private func draw(_ band: Band, into html: inout HTML) {
    let (left, right) = (x(band.from), x(band.until))
    let name = Self.names[band.status] ?? "status \(band.status)"
    let text = "\(name) (\(band.status)) from \(Self.day(band.from)) to \(Self.day(band.until))"
    html.element(
      "rect",
      [
        "class": "band status-\(band.status)", "x": Self.number(left), "y": "8",
        "width": Self.number(max(right - left, 1)), "height": "44",
        "fill": "url(#p\(id)-\(band.status))", "data-status": "\(band.status)",
        "data-from": "\(band.from.milliseconds)", "data-until": "\(band.until.milliseconds)",
      ]
    ) { $0.element("title", text: text) }
    guard right - left > 70 else { return }
    html.element(
      "text",
      [
        "x": Self.number(left + 4), "y": "35", "fill": "#fff", "font-size": "13",
        "font-weight": "600", "aria-hidden": "true", "stroke": "#111", "stroke-width": "3",
        "paint-order": "stroke",
      ], text: name)
  }

  private func draw(
    _ period: (from: Timestamp, until: Timestamp?, label: String), row: Int, into html: inout HTML
  ) {
    let (left, right) = (x(period.from), x(period.until ?? end))
    let y = 84 + row * 10
    html.element(
      "rect",
      [
        "class": "period", "x": Self.number(left), "y": "\(y)",
        "width": Self.number(max(right - left, 2)), "height": "7", "fill": "#374151",
      ]
    ) { $0.element("title", text: period.label) }
  }

  private func draw(_ mark: Mark, into html: inout HTML) {
    let at = x(mark.at)
    let text = "\(mark.label), \(Self.instant(mark.at))"
    let (shape, colour): (String, String) =
      switch mark.kind {
      case .event: ("circle", "#111827")
      case .refund: ("refund", "#b91c1c")
      case .upgrade: ("upgrade", "#0b4f9c")
      case .renewalExtension: ("extension", "#047857")
      }
    html.element(
      "g",
      ["class": "mark mark-\(shape)", "tabindex": "0", "role": "img", "aria-label": text]
    ) { html in
      html.element("title", text: text)
      switch mark.kind {
      case .event:
        html.shape("circle", ["cx": Self.number(at), "cy": "112", "r": "5", "fill": colour])
      case .refund, .upgrade, .renewalExtension:
        let points = "\(Self.number(at - 6)),0 \(Self.number(at + 6)),0 \(Self.number(at)),9"
        html.shape("polygon", ["points": points, "fill": colour])
        html.shape(
          "line",
          [
            "x1": Self.number(at), "x2": Self.number(at), "y1": "8", "y2": "52", "stroke": colour,
            "stroke-width": "2",
          ])
      }
    }
  }

  private func axis(into html: inout HTML) {
    let steps = 6
    for index in 0...steps {
      let time = Timestamp(
        milliseconds: start.milliseconds + (end.milliseconds - start.milliseconds)
          * Int64(index) / Int64(steps))
      let at = x(time)
      let anchor = index == 0 ? "start" : index == steps ? "end" : "middle"
      html.shape(
        "line",
        ["x1": Self.number(at), "x2": Self.number(at), "y1": "122", "y2": "127", "stroke": "#555"])
      html.element(
        "text",
        [
          "x": Self.number(at), "y": "142", "font-size": "12", "text-anchor": anchor,
          "fill": "#1a1a1a",
        ],
        text: Self.day(time))
    }
  }

  static func number(_ value: Double) -> String { String(format: "%.1f", value) }

  static func day(_ time: Timestamp) -> String {
    String(time.date.formatted(.iso8601.year().month().day()))
  }

  static func instant(_ time: Timestamp) -> String {
    time.date.formatted(.iso8601)
  }

  /// The legend: a swatch, the number and the word for each status.
  static func legend(into html: inout HTML) {
    html.element("ul", ["class": "legend", "aria-label": "Status legend"]) { html in
      for status in Int32(1)...5 {
        html.element("li") { html in
          html.element(
            "svg",
            ["width": "28", "height": "16", "viewBox": "0 0 28 16", "aria-hidden": "true"]
          ) { html in
            html.element("defs") { html in
              html.element(
                "pattern",
                [
                  "id": "legend-\(status)", "width": "8", "height": "8",
                  "patternUnits": "userSpaceOnUse",
                ]
              ) { html in
                html.shape(
                  "rect", ["width": "8", "height": "8", "fill": colours[status] ?? "#000"])
                html.raw(texture(status))
              }
            }
            html.shape("rect", ["width": "28", "height": "16", "fill": "url(#legend-\(status))"])
          }
          html.text(" \(status) \(names[status] ?? "")")
        }
      }
    }
  }
}
