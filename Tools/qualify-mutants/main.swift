// qualify-mutants: mutation testing of the harness itself (`make mutants`).
//
// Each mutant of Mutants/catalogue.json is a realistic bug — an edit to the harness's source
// (the simulated world, a reader), or to a copy of an app — applied alone in a scratch copy
// of the package. A mutant is killed when the verdict of its run differs from the baseline
// verdict of the same app and channel: the healthy sample app stops qualifying, or a
// regression fixture that must fail stops failing. Every harmless refactor must keep its
// baseline verdict. Prints the mutation score and the survivors; exits 1 when anything
// survived, 2 on a catalogue that does not apply.
import Foundation

/// The package root: the current directory (make runs from it) or an argument.
let root = URL(
  fileURLWithPath: CommandLine.arguments.dropFirst().first { !$0.hasPrefix("-") }
    ?? fileManager.currentDirectoryPath)
let only = CommandLine.arguments.dropFirst().first { $0.hasPrefix("--only=") }.map {
  String($0.dropFirst("--only=".count))
}
/// `--catalogue` runs the hand-written catalogue alone, `--generated` the generated sample
/// alone; both by default. `--record` writes the sample and its verdicts to
/// Mutants/generated.json in the working tree.
let flags = Set(CommandLine.arguments.dropFirst().filter { $0.hasPrefix("--") })
let runCatalogue = !flags.contains("--generated") && !flags.contains("--list")
let runGenerated = !flags.contains("--catalogue")

// A scratch copy of the package: mutants never touch the working tree.
let scratch = fileManager.temporaryDirectory.appendingPathComponent(
  "qualify-mutants-\(ProcessInfo.processInfo.processIdentifier)")

do {
  let catalogueURL = root.appendingPathComponent("Mutants/catalogue.json")
  let catalogue = try JSONDecoder().decode(
    Catalogue.self, from: try Data(contentsOf: catalogueURL))
  let swift = "/usr/bin/env"

  try? fileManager.removeItem(at: scratch)
  try fileManager.createDirectory(at: scratch, withIntermediateDirectories: true)
  defer { try? fileManager.removeItem(at: scratch) }
  for item in ["Package.swift", "Sources", "Scenarios", "Tests", "Benchmarks", "Tools", "Mutants"] {
    try fileManager.copyItem(
      at: root.appendingPathComponent(item), to: scratch.appendingPathComponent(item))
  }
  // The copy is this repository: the regression fixtures' bases (`../../messages`) must stay
  // inside it, and qualify finds a repository's root by its `.git` (docs/threat-model.md).
  try fileManager.createDirectory(
    at: scratch.appendingPathComponent(".git"), withIntermediateDirectories: true)

  func build() throws {
    let result = try run(swift, ["swift", "build", "--product", "qualify"], in: scratch)
    guard result.status == 0 else {
      throw Failure(description: "the build failed:\n\(result.output.suffix(2000))")
    }
  }

  func qualify(_ mutant: Catalogue.Mutant, app: URL) throws -> (Int32, String) {
    let arguments = [
      "--channel", mutant.channel ?? "prod", "--seed", "1", "--jobs", "2",
      "--db", scratch.appendingPathComponent("mutants.sqlite").path,
      "--report-dir", scratch.appendingPathComponent("reports").path, "--app", app.path,
    ]
    let result = try run(
      scratch.appendingPathComponent(".build/debug/qualify").path, arguments, in: scratch,
      environment: mutant.environment ?? [:])
    let headline =
      result.output.split(separator: "\n").last {
        $0.contains("QUALIFIED") || $0.hasPrefix("PASSED") || $0.hasPrefix("ERROR")
      }.map(String.init) ?? result.output.split(separator: "\n").last.map(String.init) ?? ""
    return (result.status, headline)
  }

  let sampleApp = "Scenarios/apps/messages"
  /// The binary holds a source edit that has since been reverted.
  var stale = false

  /// Applies `mutant`, runs qualify, reverts. Returns the exit status and the headline.
  func trial(_ mutant: Catalogue.Mutant) throws -> (Int32, String) {
    let isSource = mutant.file.hasPrefix("Sources/")
    var app = scratch.appendingPathComponent(mutant.app ?? sampleApp)
    var copy: URL?
    let target: URL
    if isSource {
      target = scratch.appendingPathComponent(mutant.file)
    } else {
      // The edit goes to a copy beside the app, so that a fixture's relative `base` holds.
      let duplicate = app.deletingLastPathComponent().appendingPathComponent(
        app.lastPathComponent + "-under-mutation")
      try? fileManager.removeItem(at: duplicate)
      try fileManager.copyItem(at: app, to: duplicate)
      copy = duplicate
      app = duplicate
      target = duplicate.appendingPathComponent(mutant.file)
      try mutant.createFiles(in: duplicate)
    }
    let original = try String(contentsOf: target, encoding: .utf8)
    let occurrences = original.components(separatedBy: mutant.find).count - 1
    guard occurrences == 1 else {
      throw Failure(
        description:
          "mutant \(mutant.id): its text occurs \(occurrences) times in \(mutant.file), not once (a stale catalogue entry)"
      )
    }
    try original.replacingOccurrences(of: mutant.find, with: mutant.replace).write(
      to: target, atomically: true, encoding: .utf8)
    defer {
      try? original.write(to: target, atomically: true, encoding: .utf8)
      if let copy { try? fileManager.removeItem(at: copy) }
      if isSource { stale = true }
    }
    if isSource || stale {
      try build()
      stale = isSource
    }
    return try qualify(mutant, app: app)
  }

  /// The baseline verdict (exit status) of each app and channel the catalogue runs.
  var baselines: [String: Int32] = [:]
  func baseline(_ mutant: Catalogue.Mutant) throws -> Int32 {
    let key = "\(mutant.app ?? sampleApp)@\(mutant.channel ?? "prod")"
    if let known = baselines[key] { return known }
    if stale {
      try build()
      stale = false
    }
    var probe = mutant
    probe.environment = nil
    let (status, headline) = try qualify(
      probe, app: scratch.appendingPathComponent(mutant.app ?? sampleApp))
    guard status == 0 || status == 1 else {
      throw Failure(description: "the baseline of \(key) did not run to a verdict: \(headline)")
    }
    say("baseline \(key): \(headline)")
    baselines[key] = status
    return status
  }

  var catalogueClean = true
  if runCatalogue {
    say("qualify-mutants: building the baseline in \(scratch.path)")
    try build()
    // `--only=a,b`: those mutants and refactors alone.
    let chosen = only.map { Set($0.split(separator: ",").map(String.init)) }
    let selected = catalogue.mutants.filter { chosen?.contains($0.id) ?? true }
    let refactors = catalogue.harmless.filter { chosen?.contains($0.id) ?? true }
    for entry in selected + refactors { _ = try baseline(entry) }
    guard baselines["\(sampleApp)@prod"] ?? 0 == 0 else {
      throw Failure(description: "the sample app does not qualify on prod: nothing to mutate")
    }

    var killed: [String] = []
    var survivors: [(Catalogue.Mutant, String)] = []
    var broken: [(Catalogue.Mutant, String)] = []
    let width = (selected + refactors).map(\.id.count).max() ?? 10
    for mutant in selected {
      let expected = try baseline(mutant)
      let started = Date()
      let (status, headline) = try trial(mutant)
      let seconds = String(format: "%5.1fs", Date().timeIntervalSince(started))
      let caught = status != expected
      say(
        "\(caught ? "killed  " : "SURVIVED") \(mutant.id.padding(toLength: width, withPad: " ", startingAt: 0)) \(seconds)  \(headline)"
      )
      if caught { killed.append(mutant.id) } else { survivors.append((mutant, headline)) }
    }
    for refactor in refactors {
      let expected = try baseline(refactor)
      let (status, headline) = try trial(refactor)
      let kept = status == expected
      say(
        "\(kept ? "kept    " : "BROKEN  ") \(refactor.id.padding(toLength: width, withPad: " ", startingAt: 0))         \(headline)"
      )
      if !kept { broken.append((refactor, headline)) }
    }
    let score = selected.isEmpty ? 100 : 100 * killed.count / selected.count
    say("")
    say("mutation score: \(killed.count)/\(selected.count) killed (\(score)%)")
    for (mutant, headline) in survivors {
      say("survivor: \(mutant.id) [\(mutant.area)] \(mutant.bug) — \(headline)")
    }
    for (refactor, headline) in broken {
      say("harmless refactor turned the verdict: \(refactor.id) — \(headline)")
    }
    catalogueClean = survivors.isEmpty && broken.isEmpty
  }
  var generatedClean = true
  if runGenerated {
    let environment = ProcessInfo.processInfo.environment
    var generated = GeneratedRun(
      root: root, scratch: scratch,
      count: environment["MUTANTS_N"].flatMap { Int($0) } ?? 200,
      seed: environment["MUTANTS_SEED"].flatMap { UInt64($0) } ?? 1,
      record: flags.contains("--record"), listOnly: flags.contains("--list"),
      area: environment["MUTANTS_AREA"] ?? "",
      only: only.map { Set($0.split(separator: ",").map(String.init)) },
      harmless: catalogue.harmless.filter { !$0.file.hasPrefix("Sources/") })
    generatedClean = try generated.execute()
  }
  // `exit` skips the `defer` above: the scratch copy goes first.
  try? fileManager.removeItem(at: scratch)
  exit(catalogueClean && generatedClean ? 0 : 1)
} catch {
  FileHandle.standardError.write(Data("qualify-mutants: \(error)\n".utf8))
  try? fileManager.removeItem(at: scratch)
  exit(2)
}
