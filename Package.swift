// swift-tools-version:6.0
// qualify — release qualification harness for Capacitor-style WebView shells.
// No outside Swift package: the toolchain plus Debian's C libraries, each wrapped as a
// system-library target (see docs/architecture.md).
import PackageDescription

let package = Package(
  name: "qualify",
  products: [
    .executable(name: "qualify", targets: ["qualify"])
  ],
  targets: [
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(
      name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
    .systemLibrary(
      name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
    .systemLibrary(
      name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
    // Deflated zip entries: what OTA bundles zipped by Capgo's CLI hold.
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

    .target(name: "QualifyCore"),
    .target(name: "QualifyCrypto", dependencies: ["COpenSSL", "QualifyCore"]),
    .target(name: "HTTP", dependencies: ["CCurl", "CMicroHTTPD", "QualifyCrypto", "QualifyCore"]),
    .systemLibrary(
      name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
    .target(name: "Artifacts", dependencies: ["CLibXML2", "QualifyCrypto", "QualifyCore"]),
    .target(name: "OTA", dependencies: ["CZlib", "HTTP", "QualifyCrypto", "QualifyCore"]),
    // Real browser engines over W3C WebDriver (Chromium, WebKit), for what only an engine shows.
    .target(name: "Engines", dependencies: ["HTTP", "QualifyCore"]),
    // The outside systems as the harness sees them (docs/architecture.md, *Ports*).
    .target(name: "StackPorts", dependencies: ["HTTP", "Artifacts", "OTA", "QualifyCore"]),
    .target(
      name: "MockStack",
      dependencies: ["HTTP", "QualifyCrypto", "Artifacts", "OTA", "StackPorts", "QualifyCore"]),
    .target(
      name: "Devices", dependencies: ["HTTP", "QualifyCrypto", "Artifacts", "OTA", "QualifyCore"]),
    .target(
      name: "Scenarios",
      dependencies: [
        "MockStack", "StackPorts", "Devices", "Engines", "Artifacts", "OTA", "HTTP",
        "QualifyCrypto", "ResultModel", "QualifyCore",
      ]),
    // The result model the runner produces and the store and writers consume.
    .target(name: "ResultModel", dependencies: ["QualifyCore"]),
    .target(
      name: "Results", dependencies: ["CSQLite", "ResultModel", "QualifyCrypto", "QualifyCore"]),
    .executableTarget(
      name: "qualify",
      dependencies: [
        "Results", "ResultModel", "Scenarios", "MockStack", "StackPorts", "Devices", "Engines",
        "Artifacts", "OTA", "HTTP", "QualifyCrypto", "QualifyCore",
      ]),
    .executableTarget(
      name: "qualify-bench",
      dependencies: [
        "Scenarios", "MockStack", "Engines", "Artifacts", "OTA", "HTTP", "QualifyCrypto",
        "QualifyCore", "CCurl", "CMicroHTTPD",
      ],
      path: "Benchmarks/qualify-bench"),
    // `make mutants`: mutation testing of the harness (rebuilds a scratch copy per mutant).
    .target(name: "MutationEngine", path: "Tools/MutationEngine"),
    .executableTarget(
      name: "qualify-mutants", dependencies: ["MutationEngine"], path: "Tools/qualify-mutants"),
    .target(
      name: "FuzzTargets", dependencies: ["Artifacts", "OTA", "Scenarios", "QualifyCore"],
      path: "Tools/FuzzTargets"),
    .executableTarget(
      name: "qualify-fuzz", dependencies: ["FuzzTargets"], path: "Tools/qualify-fuzz"),

    .target(
      name: "QualifyTestSupport",
      dependencies: ["HTTP", "QualifyCrypto", "QualifyCore"],
      path: "Tests/QualifyTestSupport"),
    .testTarget(name: "QualifyCoreTests", dependencies: ["QualifyCore"]),
    .testTarget(name: "MutationEngineTests", dependencies: ["MutationEngine"]),
    .testTarget(
      name: "QualifyCryptoTests",
      dependencies: ["QualifyCrypto", "QualifyCore", "QualifyTestSupport"]),
    .testTarget(name: "HTTPTests", dependencies: ["HTTP", "QualifyCrypto", "QualifyTestSupport"]),
    .testTarget(
      name: "EnginesTests",
      dependencies: ["Engines", "Devices", "Artifacts", "HTTP", "QualifyCore"]),
    .testTarget(
      name: "ArtifactsTests",
      dependencies: ["Artifacts", "QualifyCore", "QualifyCrypto", "QualifyTestSupport"]),
    .testTarget(
      name: "OTATests",
      dependencies: ["OTA", "HTTP", "QualifyCrypto", "QualifyCore", "QualifyTestSupport"]),
    .testTarget(
      name: "MockStackTests",
      dependencies: [
        "MockStack", "StackPorts", "OTA", "Artifacts", "HTTP", "QualifyCrypto", "QualifyCore",
        "QualifyTestSupport",
      ]),
    .testTarget(
      name: "DevicesTests",
      dependencies: [
        "Devices", "MockStack", "Artifacts", "OTA", "HTTP", "QualifyCore", "QualifyTestSupport",
      ]),
    .testTarget(
      name: "ScenariosTests",
      dependencies: [
        "Scenarios", "MockStack", "StackPorts", "Artifacts", "QualifyCore",
        "QualifyTestSupport",
      ]),
    .testTarget(
      name: "ResultsTests",
      dependencies: [
        "Results", "ResultModel", "QualifyCrypto", "QualifyCore", "QualifyTestSupport",
      ],
      exclude: ["__Snapshots__"]),
    .testTarget(
      name: "FuzzRegressionTests", dependencies: ["FuzzTargets", "QualifyTestSupport"]),
    .testTarget(
      name: "QualifyCLITests",
      dependencies: ["qualify", "Results", "HTTP", "QualifyCore", "QualifyTestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
