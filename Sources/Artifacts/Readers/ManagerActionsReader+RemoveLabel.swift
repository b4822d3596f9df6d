import Foundation
import QualifyCore

/// Whether the manager's remove button shows something to tap: the element whose click
/// handler calls `removeInstance(` gets text (`textContent`, `innerText`, `innerHTML`), a
/// child (`append(`, `appendChild(`, `prepend(`, `replaceChildren(`, `insertAdjacent…(`; an
/// `Object.assign` of the text), or a stylesheet rule of its class that draws content
/// (`.instance-remove::before { content: '✕' }`). An `aria-label` alone is read out by a
/// screen reader and draws nothing: a sighted user sees no way to remove an instance.
extension ManagerActionsReader {
  /// True when the remove button shows something, false (with where) when it shows nothing;
  /// nil when no click handler calls `removeInstance(`.
  func removeButtonLabelled() -> Sourced<Bool>? {
    for (file, lines) in web.files {
      let text = lines.map(\.1).joined(separator: "\n")
      for (offset, (index, line)) in lines.enumerated() {
        guard
          let name = InstanceDecisionReader.matches(
            #"([A-Za-z_$][\w$]*)\s*\.\s*(?:onclick\s*=|addEventListener\(\s*['"]click['"])"#,
            line
          ).first?.first,
          CodeSearch.block(lines[offset...], oneLineArrows: true).contains("removeInstance(")
        else { continue }
        let at = FileLocation(file: file, line: index + 1, column: 1)
        let element = NSRegularExpression.escapedPattern(for: name)
        let shows =
          #"(?<![\w$.])"# + element
          + #"\s*\.\s*(?:(?:textContent|innerText|innerHTML)\s*=\s*(?!\s*['"`]\s*['"`])|(?:append|appendChild|prepend|replaceChildren|insertAdjacentHTML|insertAdjacentText|insertAdjacentElement)\()"#
        // `Object.assign(remove, { textContent: '✕' })` sets it too.
        let assigned =
          #"Object\.assign\(\s*"# + element
          + #"\s*,[^)]*\b(?:textContent|innerText|innerHTML)\s*:\s*(?!\s*['"`]\s*['"`])"#
        if text.range(of: shows, options: .regularExpression) != nil
          || text.range(of: assigned, options: .regularExpression) != nil
        {
          return Sourced(true, at: at)
        }
        // A class whose stylesheet rule draws the label.
        for found in InstanceDecisionReader.matches(
          #"(?<![\w$.])"# + element + #"\s*\.\s*className\s*=\s*['"]([^'"]+)['"]"#, text)
        where drawnByStylesheet(found[0]) {
          return Sourced(true, at: at)
        }
        return Sourced(
          false, at: at,
          derivation: [
            "the remove button (\(name)) gets no text, no child and no drawn content: nothing shows where to tap"
          ])
      }
    }
    return nil
  }

  /// Whether a stylesheet of the web code draws content for `.name::before` or `::after`.
  func drawnByStylesheet(_ classes: String) -> Bool {
    let names = classes.split(separator: " ").map(String.init)
    return (styles?.files ?? []).contains { _, lines in
      let css = lines.map(\.1).joined(separator: "\n")
      return names.contains { name in
        css.range(
          of: #"\."# + NSRegularExpression.escapedPattern(for: name)
            + #"::?(?:before|after)\s*\{[^}]*content\s*:\s*(?!\s*(?:none|normal|['"]\s*['"]))"#,
          options: .regularExpression) != nil
      }
    }
  }
}
