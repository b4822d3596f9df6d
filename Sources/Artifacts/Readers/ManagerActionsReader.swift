import Foundation
import QualifyCore

/// What the manager's two buttons do, read from the web code as written (seed 004, task
/// 20.1: users add, remove and switch between instances):
///
/// - opening a listed instance must save it as the active one before it navigates: the
///   native navigation policy keeps only the active instance in the WebView, and a cold
///   restart loads it (the click handler whose body navigates — `loadInstance(`,
///   `location.assign(` — and its `setActiveUrl(…)`, awaited or chained with `.then`);
/// - removing an instance must clear the active one when it is the one removed: a cold
///   restart would otherwise load a site the user removed (the `if` guarding
///   `setActiveUrl(null)` in `removeInstance`, compared with the removed URL).
struct ManagerActionsReader {
  let web: CodeSearch
  /// The web code's stylesheets, where a button's label may be drawn.
  var styles: CodeSearch?

  static let navigations = ["loadInstance(", "location.assign(", "location.href ="]

  /// The open button's handler: whether it saves the active instance before navigating.
  func openSavesActive() -> Sourced<ManagerOpen>? {
    // Of every click handler that navigates (a help link may too), the one that saves first
    // is the manager's open; a wrapper that saves and navigates counts as both.
    let savingWrappers = Set(
      ["loadInstance", "openInstance"].filter { name in
        web.definition(of: name).map {
          $0.body.contains("setActiveUrl(")
        } ?? false
      })
    var judged: Sourced<ManagerOpen>?
    for handler in clickHandlers() {
      let body = handler.body
      guard
        let navigation = Self.navigations.compactMap({ body.range(of: $0) }).min(by: {
          $0.lowerBound < $1.lowerBound
        }),
        !body.contains("removeInstance(")
      else { continue }
      let at = FileLocation(file: handler.file, line: handler.line, column: 1)
      if savingWrappers.contains(where: { body.contains($0 + "(") }) {
        return Sourced(.savesFirst, at: at)
      }
      guard let save = body.range(of: "setActiveUrl(") else {
        judged =
          judged
          ?? Sourced(
            .never, at: at, derivation: ["the open handler navigates and saves no active instance"])
        continue
      }
      if save.lowerBound < navigation.lowerBound { return Sourced(.savesFirst, at: at) }
      judged = Sourced(
        .navigatesFirst, at: at, derivation: ["the open handler navigates before setActiveUrl("])
    }
    return judged
  }

  /// When `removeInstance` clears the active instance.
  func removeClearsActive() -> Sourced<ManagerRemove>? {
    guard
      let block = web.definition(of: "removeInstance")
    else { return nil }
    let at = FileLocation(file: block.file, line: block.line, column: 1)
    let parameter =
      InstanceDecisionReader.matches(
        #"removeInstance\s*(?:=\s*(?:async\s*)?)?\(\s*(\w+)"#, block.body
      )
      .first?.first ?? "url"
    let clears = #"(?:setActiveUrl\(\s*null\s*\)|Preferences\.remove\(\s*\{\s*key:\s*\w*ACTIVE)"#
    guard let clear = block.body.range(of: clears, options: .regularExpression) else {
      return Sourced(
        .never, at: at, derivation: ["removeInstance never clears the active instance"])
    }
    // The test guarding the clear: the last `if (…)` before it.
    let before = String(block.body[..<clear.lowerBound])
    guard
      let condition = InstanceDecisionReader.matches(
        #"if\s*\((.+?)\)\s*\{?\s*(?:await\s+)?$"#, before
      )
      .last?.first
        ?? InstanceDecisionReader.matches(#"if\s*\((.+)\)\s*\{?\s*(?:await\s+)?$"#, before).last?
        .first
    else { return Sourced(.whenRemoved, at: at, derivation: ["removeInstance always clears it"]) }
    let name = NSRegularExpression.escapedPattern(for: parameter)
    let equal = #"(?<![!=])===?\s*"# + name + #"\b|\b"# + name + #"\s*===?"#
    if condition.range(of: equal, options: .regularExpression) == nil,
      condition.range(
        of: #"!==?\s*"# + name + #"\b|\b"# + name + #"\s*!==?"#, options: .regularExpression)
        != nil
    {
      return Sourced(
        .whenOther, at: at,
        derivation: ["its test is \(condition)"])
    }
    return Sourced(.whenRemoved, at: at)
  }

  /// Whether the submit handler loads the instance it has just added (a navigation after its
  /// `addInstance(`); nil when no submit handler calling `addInstance(` is found.
  func addLoadsInstance() -> Sourced<Bool>? {
    let openers = [".onsubmit =", "addEventListener('submit'", "addEventListener(\"submit\""]
    for block in openers.flatMap({ web.blocks(after: $0) }) {
      guard let add = block.body.range(of: "addInstance(") else { continue }
      let line = block.line + block.body[..<add.lowerBound].filter { $0 == "\n" }.count
      let at = FileLocation(file: block.file, line: line, column: 1)
      let after = block.body[add.upperBound...]
      if (Self.navigations + ["location.replace("]).contains(where: after.contains) {
        return Sourced(true, at: at)
      }
      return Sourced(false, at: at)
    }
    return nil
  }

  /// Every click handler's block (`x.onclick = …`, `x.addEventListener('click', …)`).
  func clickHandlers() -> [(file: String, line: Int, body: String)] {
    var out: [(file: String, line: Int, body: String)] = []
    for (file, lines) in web.files {
      for (position, (index, line)) in lines.enumerated()
      where line.contains(".onclick =") || line.contains("addEventListener('click'")
        || line.contains("addEventListener(\"click\"")
      {
        out.append((file, index + 1, CodeSearch.block(lines[position...], oneLineArrows: true)))
      }
    }
    return out
  }
}

/// How the manager's open button orders its two steps.
public enum ManagerOpen: String, Sendable, Equatable {
  case savesFirst, navigatesFirst, never
}

/// When the manager's remove clears the active instance.
public enum ManagerRemove: String, Sendable, Equatable {
  case whenRemoved, whenOther, never
}
