import CoreMetrics
import Prometheus

/// swift-metrics' factory over the server's own Prometheus registry (nothing global is
/// bootstrapped), giving each family its help text and the append histogram its buckets.
struct ServerMetricsFactory: MetricsFactory {
  let registry: PrometheusCollectorRegistry
  /// Help text by family name: a family keeps the text it was first made with.
  let help: [String: String]
  /// Bucket upper bounds of each timer family.
  let buckets: [String: [Duration]]

  func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
    registry.makeCounter(name: label, labels: dimensions, help: help[label] ?? "")
  }

  func makeFloatingPointCounter(label: String, dimensions: [(String, String)])
    -> any FloatingPointCounterHandler
  {
    registry.makeCounter(name: label, labels: dimensions, help: help[label] ?? "")
  }

  func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool)
    -> any RecorderHandler
  {
    registry.makeGauge(name: label, labels: dimensions, help: help[label] ?? "")
  }

  func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
    registry.makeGauge(name: label, labels: dimensions, help: help[label] ?? "")
  }

  func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
    registry.makeDurationHistogram(
      name: label, labels: dimensions, buckets: buckets[label] ?? [.seconds(1)],
      help: help[label] ?? "")
  }

  func destroyCounter(_ handler: any CounterHandler) {
    if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
  }

  func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
    if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
  }

  func destroyRecorder(_ handler: any RecorderHandler) {
    if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
  }

  func destroyMeter(_ handler: any MeterHandler) {
    if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
  }

  func destroyTimer(_ handler: any TimerHandler) {
    if let histogram = handler as? DurationHistogram {
      registry.unregisterDurationHistogram(histogram)
    }
  }
}
