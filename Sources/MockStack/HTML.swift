/// Escapes text for HTML content and attribute values.
func escapeHTML(_ text: String) -> String {
  var out = ""
  for c in text {
    switch c {
    case "&": out += "&amp;"
    case "<": out += "&lt;"
    case ">": out += "&gt;"
    case "\"": out += "&quot;"
    case "'": out += "&#39;"
    default: out.append(c)
    }
  }
  return out
}
