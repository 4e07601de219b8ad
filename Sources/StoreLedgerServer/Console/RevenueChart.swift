import Foundation
import StoreLedgerCore

/// A chart of figures over buckets drawn as SVG on the server: lines (each with its own dash
/// and point shape) or stacked bars (each with its own pattern), so they read without colour;
/// every point and bar is named for screen readers and on hover, and links to what is
/// behind it.
struct RevenueChart {
  struct Series {
    let name: String
    let values: [Double]
    let colour: String
    /// `none`, `6 3`, `2 3`: lines told apart by their dashes.
    let dash: String
    /// A bar's pattern: `solid`, `diagonal`, `dots`, `cross`.
    let pattern: String
  }

  enum Kind { case lines, stackedBars }

  let id: String
  let title: String
  let kind: Kind
  let labels: [String]
  let series: [Series]
  /// The value as text (amounts in units of the currency, counts as numbers).
  let format: (Double) -> String
  /// Where a bucket's drill-down is.
  let link: (Int) -> String

  private static let width = 900.0
  private static let height = 240.0
  private static let left = 70.0
  private static let bottom = 30.0
  private static let top = 12.0

  private var maximum: Double {
    let peak: Double =
      switch kind {
      case .lines: series.flatMap(\.values).max() ?? 0
      case .stackedBars:
        labels.indices.map { index in series.reduce(0) { $0 + ($1.values[safe: index] ?? 0) } }
          .max() ?? 0
      }
    return peak > 0 ? peak : 1
  }

  private func x(_ index: Int) -> Double {
    let span = Self.width - Self.left - 10
    guard labels.count > 1 else { return Self.left + span / 2 }
    return Self.left + span * Double(index) / Double(labels.count - 1)
  }

  private func y(_ value: Double) -> Double {
    let span = Self.height - Self.top - Self.bottom
    return Self.top + span * (1 - value / maximum)
  }

  private static func number(_ value: Double) -> String { String(format: "%.1f", value) }

  func render(into html: inout HTML) {
    let summary =
      "\(title): "
      + series.map { series in
        "\(series.name) from \(format(series.values.first ?? 0)) to \(format(series.values.last ?? 0))"
      }.joined(separator: "; ")
    html.element("figure", ["class": "chart", "id": id]) { html in
      html.element("figcaption", text: title)
      html.element(
        "svg",
        [
          "viewBox": "0 0 \(Int(Self.width)) \(Int(Self.height))", "role": "group",
          "aria-label": summary, "xmlns": "http://www.w3.org/2000/svg", "class": "chart-svg",
        ]
      ) { html in
        patterns(into: &html)
        axes(into: &html)
        switch kind {
        case .lines: lines(into: &html)
        case .stackedBars: bars(into: &html)
        }
      }
      legend(into: &html)
    }
  }

  private func patterns(into html: inout HTML) {
    html.element("defs") { html in
      for (index, series) in series.enumerated() {
        html.element(
          "pattern",
          ["id": "\(id)-p\(index)", "width": "8", "height": "8", "patternUnits": "userSpaceOnUse"]
        ) { html in
          html.shape("rect", ["width": "8", "height": "8", "fill": series.colour])
          html.raw(Self.texture(series.pattern))
        }
      }
    }
  }

  static func texture(_ pattern: String) -> String {
    switch pattern {
    case "diagonal": "<path d=\"M0 8L8 0\" stroke=\"#fff\" stroke-width=\"1.5\"/>"
    case "dots": "<circle cx=\"4\" cy=\"4\" r=\"1.6\" fill=\"#fff\"/>"
    case "cross": "<path d=\"M0 0L8 8M8 0L0 8\" stroke=\"#fff\" stroke-width=\"1.2\"/>"
    default: ""
    }
  }

  private func axes(into html: inout HTML) {
    let base = Self.number(Self.height - Self.bottom)
    html.shape(
      "line",
      [
        "x1": Self.number(Self.left), "x2": Self.number(Self.width - 10), "y1": base,
        "y2": base, "stroke": "#555",
      ])
    for fraction in [0.0, 0.5, 1.0] {
      let at = Self.number(y(maximum * fraction))
      html.shape(
        "line",
        [
          "x1": Self.number(Self.left), "x2": Self.number(Self.width - 10), "y1": at, "y2": at,
          "stroke": "#ddd",
        ])
      html.element(
        "text", ["x": "4", "y": at, "class": "axis"], text: format(maximum * fraction))
    }
    // A label under every few buckets, so they never overlap.
    let every = max(1, labels.count / 8)
    for index in labels.indices where index % every == 0 || index == labels.count - 1 {
      html.element(
        "text",
        [
          "x": Self.number(x(index) - (index == labels.count - 1 ? 60 : 20)),
          "y": Self.number(Self.height - 8), "class": "axis",
        ],
        text: labels[index])
    }
  }

  private func lines(into html: inout HTML) {
    for (number, series) in series.enumerated() {
      let points = series.values.indices.map {
        "\(Self.number(x($0))),\(Self.number(y(series.values[$0])))"
      }
      html.shape(
        "polyline",
        [
          "points": points.joined(separator: " "), "fill": "none", "stroke": series.colour,
          "stroke-width": "2", "stroke-dasharray": series.dash,
        ])
      for index in series.values.indices {
        let text = "\(series.name), \(labels[index]): \(format(series.values[index]))"
        html.element("a", ["href": link(index), "aria-label": text]) { html in
          html.element("title", text: text)
          let (cx, cy) = (Self.number(x(index)), Self.number(y(series.values[index])))
          // Each series its own point shape: circle, square, diamond.
          switch number % 3 {
          case 0:
            html.shape("circle", ["cx": cx, "cy": cy, "r": "4", "fill": series.colour])
          case 1:
            html.shape(
              "rect",
              [
                "x": Self.number(x(index) - 4), "y": Self.number(y(series.values[index]) - 4),
                "width": "8", "height": "8", "fill": series.colour,
              ])
          default:
            let (px, py) = (x(index), y(series.values[index]))
            html.shape(
              "polygon",
              [
                "points":
                  "\(Self.number(px)),\(Self.number(py - 5)) \(Self.number(px + 5)),\(Self.number(py)) \(Self.number(px)),\(Self.number(py + 5)) \(Self.number(px - 5)),\(Self.number(py))",
                "fill": series.colour,
              ])
          }
        }
      }
    }
  }

  private func bars(into html: inout HTML) {
    let slot = (Self.width - Self.left - 10) / Double(max(labels.count, 1))
    let width = max(slot * 0.7, 2)
    for index in labels.indices {
      var stacked = 0.0
      let left = Self.left + slot * Double(index) + (slot - width) / 2
      for (number, series) in series.enumerated() {
        let value = series.values[safe: index] ?? 0
        guard value > 0 else { continue }
        let top = y(stacked + value)
        let height = y(stacked) - top
        stacked += value
        let text = "\(series.name), \(labels[index]): \(format(value))"
        html.element("a", ["href": link(index), "aria-label": text]) { html in
          html.element("title", text: text)
          html.shape(
            "rect",
            [
              "x": Self.number(left), "y": Self.number(top), "width": Self.number(width),
              "height": Self.number(max(height, 1)), "fill": "url(#\(id)-p\(number))",
              "stroke": "#333", "stroke-width": "0.5",
            ])
        }
      }
    }
  }

  private func legend(into html: inout HTML) {
    html.element("ul", ["class": "legend", "aria-label": "\(title) legend"]) { html in
      for (index, series) in series.enumerated() {
        html.element("li") { html in
          html.element(
            "svg",
            [
              "width": "28", "height": "14", "aria-hidden": "true",
              "xmlns": "http://www.w3.org/2000/svg",
            ]
          ) { html in
            switch kind {
            case .lines:
              html.shape(
                "line",
                [
                  "x1": "0", "x2": "28", "y1": "7", "y2": "7", "stroke": series.colour,
                  "stroke-width": "3", "stroke-dasharray": series.dash,
                ])
            case .stackedBars:
              html.element("defs") { html in
                html.element(
                  "pattern",
                  [
                    "id": "\(id)-l\(index)", "width": "8", "height": "8",
                    "patternUnits": "userSpaceOnUse",
                  ]
                ) { html in
                  html.shape("rect", ["width": "8", "height": "8", "fill": series.colour])
                  html.raw(Self.texture(series.pattern))
                }
              }
              html.shape(
                "rect",
                ["width": "28", "height": "14", "fill": "url(#\(id)-l\(index))", "stroke": "#333"])
            }
          }
          html.text(" \(series.name)")
        }
      }
    }
  }
}

extension Array {
  subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
