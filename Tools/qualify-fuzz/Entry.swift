import Foundation
import FuzzTargets

// Built two ways (docs/fuzzing.md). With `-D QUALIFY_FUZZ -sanitize=fuzzer,address`
// (`make fuzz`), `main` hands over to libFuzzer's driver, which calls the entry point below
// with each input of the target named by $QUALIFY_FUZZ_TARGET (SwiftPM names the executable's
// entry point itself, so libFuzzer's own `main` cannot be the one that runs). Built normally, it is a replayer:
// `qualify-fuzz TARGET FILE...` runs files through a target once each, which is how a crash
// the fuzzer saved is reproduced without libFuzzer; and `qualify-fuzz seed TARGET ROOT DIR`
// writes a target's seed corpus.

let selected: FuzzTargets.Target? = {
  guard let name = ProcessInfo.processInfo.environment["QUALIFY_FUZZ_TARGET"] else { return nil }
  return FuzzTargets.named(name)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let target = selected else {
    fatalError(
      "set QUALIFY_FUZZ_TARGET to one of: \(FuzzTargets.all.map(\.name).joined(separator: ", "))")
  }
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  target.run(bytes)
  return 0
}

#if QUALIFY_FUZZ
  /// libFuzzer's driver (LLVM 11+), the body of its own `main`.
  @_silgen_name("LLVMFuzzerRunDriver")
  func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
  ) -> Int32

  @main struct Fuzz {
    static func main() {
      var argc = CommandLine.argc
      var argv = CommandLine.unsafeArgv
      exit(runFuzzerDriver(&argc, &argv, fuzzOneInput))
    }
  }
#else
  @main struct Replay {
    static func main() {
      let arguments = Array(CommandLine.arguments.dropFirst())
      if arguments.first == "seed", arguments.count == 4,
        let target = FuzzTargets.named(arguments[1])
      {
        do {
          let count = try target.writeSeeds(
            from: URL(fileURLWithPath: arguments[2]), to: URL(fileURLWithPath: arguments[3]))
          print("\(target.name): \(count) seeds")
        } catch {
          print("cannot write the seeds: \(error)")
          exit(2)
        }
        return
      }
      guard let name = arguments.first, let target = FuzzTargets.named(name) else {
        print("usage: qualify-fuzz TARGET FILE... | qualify-fuzz seed TARGET ROOT DIR")
        print("targets: \(FuzzTargets.all.map(\.name).joined(separator: ", "))")
        exit(arguments.isEmpty ? 0 : 2)
      }
      for path in arguments.dropFirst() {
        guard let data = FileManager.default.contents(atPath: path) else {
          print("cannot read \(path)")
          exit(2)
        }
        target.run(Array(data))
        print("\(name) \(path): no crash")
      }
    }
  }
#endif
