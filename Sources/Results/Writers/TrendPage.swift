import Foundation
import QualifyCore

/// `Reports/index.html`: every recorded run per channel over time — verdict and duration —
/// as an inline SVG chart and a table, each run linking to its report. No script, the same
/// Content-Security-Policy as the report.
public enum TrendPage {
  /// What tells a page qualify wrote from one it must not overwrite.
  public static let marker = "<meta name=\"generator\" content=\"qualify trend\">"

  public static func render(runs: [RunRecord], now: Date = Date()) -> String {
    var out = HTMLReport.page(title: "qualify — runs over time")
      .replacingOccurrences(
        of: "<meta charset=\"utf-8\">", with: "<meta charset=\"utf-8\">\n" + marker)
    out +=
      "<header><h1>Runs over time <span class=\"sub\">\(runs.count) run\(runs.count == 1 ? "" : "s") recorded</span></h1></header>\n"
    // One section per app and channel: a shared store may hold several apps' runs.
    var groups: [(app: String, channel: Channel)] = []
    for channel in Channel.allCases {
      for app in Set(runs.filter { $0.channel == channel }.map(\.app)).sorted() {
        groups.append((app, channel))
      }
    }
    var ids: Set<String> = []
    for (app, channel) in groups {
      var id = channel.rawValue
      while ids.contains(id) { id += "-" + String(ids.count) }
      ids.insert(id)
      let own = runs.filter { $0.channel == channel && $0.app == app }.sorted {
        $0.startedAt < $1.startedAt
      }
      let name = own.last?.appName ?? URL(fileURLWithPath: app).lastPathComponent
      out +=
        "<section id=\"\(id)\"><h2>Channel \(channel.rawValue) <span class=\"sub\">\(h(name)) · \(h(DisplayPath.of(app)))</span></h2>\n"
      out += chart(own)
      out +=
        "<table class=\"index\">\n<thead><tr><th>Run</th><th>Started</th><th>Verdict</th><th>Duration</th><th>Passed</th><th>Failed</th><th>Control did not bite</th><th>Error</th></tr></thead>\n<tbody>\n"
      for run in own.reversed() {
        out +=
          "<tr><td><a href=\"runs/\(h(run.id))/index.html\">\(h(run.id))</a></td><td>\(h(ResultStore.format(run.startedAt)))</td><td><span class=\"badge \(css(run.status))\">\(h(run.statusText))</span></td><td>\(h(duration(run).map(Durations.format) ?? "—"))</td>"
        for key in ["passed", "failed", "control-did-not-bite", "error"] {
          out += "<td>\(run.counts[key, default: 0])</td>"
        }
        out += "</tr>\n"
      }
      out += "</tbody>\n</table>\n</section>\n"
    }
    if runs.isEmpty { out += "<p class=\"none\">No run recorded yet.</p>\n" }
    out += "</body>\n</html>\n"
    return out
  }

  static func duration(_ run: RunRecord) -> TimeInterval? {
    run.finishedAt.map { $0.timeIntervalSince(run.startedAt) }
  }

  /// Durations as bars, one per run in time order, coloured by verdict, each with its run id
  /// and verdict as a tooltip.
  static func chart(_ runs: [RunRecord]) -> String {
    let width = 720.0
    let height = 160.0
    let bottom = height - 20
    let longest = max(runs.compactMap(duration).max() ?? 1, 0.001)
    let slot = width / Double(max(runs.count, 1))
    var out =
      "<svg class=\"trend\" role=\"img\" aria-label=\"durations and verdicts of \(runs.count) runs\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\" xmlns=\"http://www.w3.org/2000/svg\">\n"
    out +=
      "<line x1=\"0\" y1=\"\(bottom)\" x2=\"\(width)\" y2=\"\(bottom)\" stroke=\"#d0d7de\"/>\n<text x=\"2\" y=\"12\" font-size=\"11\" fill=\"#6e7781\">\(h(Durations.format(longest)))</text>\n"
    let colours: [RunRecord.Status: String] = [
      .qualified: "#1a7f37", .notQualified: "#cf222e", .partial: "#6e7781", .error: "#9a6700",
      .aborted: "#9a6700", .running: "#8250df",
    ]
    for (index, run) in runs.enumerated() {
      let value = duration(run) ?? 0
      let barHeight = max(2, (bottom - 16) * value / longest)
      let x = Double(index) * slot + slot * 0.15
      out +=
        "<rect class=\"run \(h(run.status.rawValue))\" x=\"\(format(x))\" y=\"\(format(bottom - barHeight))\" width=\"\(format(max(1, slot * 0.7)))\" height=\"\(format(barHeight))\" fill=\"\(colours[run.status] ?? "#6e7781")\"><title>\(h(run.id)) \(h(run.status.rawValue)) \(h(Durations.format(value)))</title></rect>\n"
    }
    out += "</svg>\n"
    return out
  }

  static func format(_ value: Double) -> String { String(format: "%.1f", value) }

  static func css(_ status: RunRecord.Status) -> String {
    switch status {
    case .qualified: return "ok"
    case .notQualified: return "bad"
    case .partial: return "none"
    default: return "warn"
    }
  }

  static func h(_ text: String) -> String { HTMLText.escape(text) }
}
