import Foundation

/// A message written as JSON text, with a route package spliced in as text (serialising a
/// hundred thousand coordinates through Foundation would dominate the run).
enum RouteText {
  struct Raw {
    var json: String
  }

  /// A ground start package of the shape OpenMapX's schema asks for (a route, an
  /// alternative, the destination, locale, units and settings), `coordinates` points across
  /// both routes' geometries and `legs` split between them: an aggregate bound is about the
  /// whole message, and each route's own list stays under any per-route bound.
  static func groundPackage(coordinates: Int, steps: Int, legs: Int) -> Raw {
    func route(points: Int, steps: Int, legs: Int) -> String {
      var text = "{\"distance\":1000,\"duration\":600,\"mode\":\"driving\",\"geometry\":["
      text.reserveCapacity(points * 12 + steps * 16 + legs * 12 + 64)
      for index in 0..<points {
        if index > 0 { text += "," }
        text += "[\(index % 180),45]"
      }
      text += "],\"steps\":["
      text += (0..<steps).map { "{\"distance\":\($0)}" }.joined(separator: ",")
      text += "],\"legs\":["
      text += (0..<legs).map { "{\"index\":\($0)}" }.joined(separator: ",")
      return text + "]}"
    }
    let alternative = route(points: 2, steps: 0, legs: legs / 2)
    let main = route(
      points: Swift.max(coordinates - 2, 2), steps: steps, legs: legs - legs / 2)
    let text =
      "{\"kind\":\"ground\",\"route\":\(main),\"alternatives\":[\(alternative)],"
      + "\"mode\":\"driving\",\"destinationWaypoints\":[[2.35,48.85]],"
      + "\"routeSelectionIntent\":\"automatic\",\"routeOptions\":{},\"locale\":\"en\","
      + "\"units\":\"metric\",\"settings\":{\"voiceEnabled\":true,\"keepScreenOn\":true,"
      + "\"voiceTiming\":\"normal\"}}"
    return Raw(json: text)
  }

  static func serialize(_ message: [String: Any]) -> [UInt8] {
    var raw: [String: String] = [:]
    var plain = message
    if var payload = message["payload"] as? [String: Any] {
      for (key, value) in payload {
        if let value = value as? Raw {
          raw[key] = value.json
          payload[key] = "\u{0}raw:\(key)"
        }
      }
      plain["payload"] = payload
    }
    var text =
      (try? JSONSerialization.data(withJSONObject: plain, options: [.sortedKeys]))
      .map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    for (key, json) in raw {
      text = text.replacingOccurrences(of: "\"\\u0000raw:\(key)\"", with: json)
    }
    return Array(text.utf8)
  }
}
