import Foundation
import OTA
import QualifyCrypto
import Testing

/// Zips written by hand to be read otherwise by a device's unzip than by a naive reader: each
/// is refused before anything is taken from it, signed or not.
@Suite struct HostileZipTests {
  /// One entry as a hostile writer lays it out.
  struct Raw {
    var name: String
    var data: [UInt8]
    /// The name the local header carries (another than the central one, when set).
    var localName: String?
    var madeBy: UInt16 = 20
    var externalAttributes: UInt32 = 0
    /// A CRC the local header claims instead of the real one.
    var localCRC: UInt32?
    /// Where the central record says the local header is (its real offset when nil).
    var offsetOverride: Int?
  }

  static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xff), UInt8((value >> 8) & 0xff)] }
  static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xff) } }
  static func le32(_ value: UInt32) -> [UInt8] { le32(Int(value)) }

  static func localHeader(name: [UInt8], crc: UInt32, size: Int) -> [UInt8] {
    le32(0x0403_4b50) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0) + le32(crc)
      + le32(size) + le32(size) + le16(name.count) + le16(0) + name
  }

  static func centralRecord(
    name: [UInt8], crc: UInt32, size: Int, offset: Int, madeBy: UInt16, external: UInt32
  ) -> [UInt8] {
    le32(0x0201_4b50) + le16(Int(madeBy)) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0)
      + le32(crc) + le32(size) + le32(size) + le16(name.count) + le16(0) + le16(0) + le16(0)
      + le16(0) + le32(external) + le32(offset) + name
  }

  /// Stored entries laid out one after the other, then the directory and the end record.
  static func zip(_ entries: [Raw]) -> [UInt8] {
    var out: [UInt8] = []
    var central: [UInt8] = []
    for entry in entries {
      let crc = CRC32.checksum(entry.data)
      let offset = out.count
      out +=
        localHeader(
          name: Array((entry.localName ?? entry.name).utf8), crc: entry.localCRC ?? crc,
          size: entry.data.count) + entry.data
      central += centralRecord(
        name: Array(entry.name.utf8), crc: crc, size: entry.data.count,
        offset: entry.offsetOverride ?? offset, madeBy: entry.madeBy,
        external: entry.externalAttributes)
    }
    return out + central + end(count: entries.count, size: central.count, at: out.count)
  }

  static func end(count: Int, size: Int, at offset: Int) -> [UInt8] {
    le32(0x0605_4b50) + le16(0) + le16(0) + le16(count) + le16(count) + le32(size) + le32(offset)
      + le16(0)
  }

  /// David Fifield's overlap: the first entry's data *is* the second entry (its local header
  /// and content), so the same bytes are unpacked twice.
  static func overlapping() -> [UInt8] {
    let inner =
      localHeader(
        name: Array("assets/app.js".utf8), crc: CRC32.checksum(Array("x".utf8)), size: 1)
      + Array("x".utf8)
    let outerName = Array("index.html".utf8)
    let outer = localHeader(name: outerName, crc: CRC32.checksum(inner), size: inner.count) + inner
    let central =
      centralRecord(
        name: outerName, crc: CRC32.checksum(inner), size: inner.count, offset: 0, madeBy: 20,
        external: 0)
      + centralRecord(
        name: Array("assets/app.js".utf8), crc: CRC32.checksum(Array("x".utf8)), size: 1,
        offset: 30 + outerName.count, madeBy: 20, external: 0)
    return outer + central + end(count: 2, size: central.count, at: outer.count)
  }

  static let index = Raw(name: "index.html", data: Array("<p>ok</p>".utf8))

  static let hostile: [(String, [UInt8], String)] = [
    (
      "symlink",
      zip([
        index,
        Raw(
          name: "assets/secrets", data: Array("/etc/passwd".utf8), madeBy: 3 << 8 | 20,
          externalAttributes: UInt32(0o120777) << 16),
      ]), "is a symbolic link"
    ),
    (
      "duplicate index", zip([index, Raw(name: "index.html", data: Array("<p>evil</p>".utf8))]),
      "two entries are named index.html"
    ),
    (
      "duplicate through ./",
      zip([index, Raw(name: "./index.html", data: Array("<p>evil</p>".utf8))]),
      "two entries are named index.html"
    ),
    (
      "local name differs",
      zip([index, Raw(name: "assets/app.js", data: [0x41], localName: "assets/evil.js")]),
      "disagrees with the central directory"
    ),
    (
      "local CRC differs",
      zip([index, Raw(name: "assets/app.js", data: [0x41], localCRC: 0xDEAD_BEEF)]),
      "disagrees with the central directory"
    ),
    ("overlapping entries", overlapping(), "overlap"),
  ]

  @Test(arguments: 0..<hostile.count)
  func aHostileArchiveIsRefusedBeforeAnythingIsExtracted(case index: Int) throws {
    let (label, bytes, message) = Self.hostile[index]
    do {
      _ = try ZipArchive(bytes: bytes)
      Issue.record("\(label): read")
    } catch let error as ZipError {
      #expect(error.isUnsafe, "\(label)")
      #expect(error.description.contains(message), "\(label): \(error)")
    }
    // Signed with the right key, it is still refused, under its own reason.
    let sealed = try CapgoBundle.seal(
      zip: bytes, privateKey: CapgoBundleTests.key, randomBytes: { try SecureRandom.bytes($0) })
    let report = BundleVerifier.verify(
      manifest: Manifest(
        version: "1300-abc", url: "bundles/1300-abc.zip", checksum: sealed.checksum,
        sessionKey: sealed.sessionKey), bundle: sealed.encrypted,
      publicKey: try Key.publicKey(pem: try CapgoBundleTests.key.pkcs1PublicPEM()), current: nil)
    #expect(
      report.refusal?.reason == .unsafeArchive, "\(label): \(String(describing: report.refusal))")
  }

  @Test func anOrdinaryArchiveWrittenTheSameWayIsRead() throws {
    let archive = try ZipArchive(
      bytes: Self.zip([Self.index, Raw(name: "assets/app.js", data: Array("x".utf8))]))
    #expect(archive.entries.map(\.name) == ["index.html", "assets/app.js"])
  }

  /// A bundle zipped as Capgo's CLI zips it (deflate) is inflated and read; an entry that
  /// inflates to another size than its header gives is refused.
  @Test func deflatedEntriesAreInflatedAndCheckedAgainstTheirHeader() throws {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
      "qualify-deflate-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let path = scratch.appendingPathComponent("bundle.zip").path
    let script = """
      import sys, zipfile
      with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
          z.writestr("index.html", "<!doctype html>" + "<p>hello</p>" * 500)
          z.writestr("assets/app.js", "console.log(1);")
      """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", script, path]
    try process.run()
    process.waitUntilExit()
    let bytes = try #require(FileManager.default.contents(atPath: path).map(Array.init))
    let archive = try ZipArchive(bytes: bytes)
    let index = try #require(archive.entry("index.html"))
    #expect(index.readable)
    #expect(String(decoding: index.data, as: UTF8.self).hasSuffix("<p>hello</p>"))
    #expect(index.data.count == 15 + 12 * 500)
    // The same stream announced one byte shorter: refused, not truncated.
    var lying = bytes
    let signature: [UInt8] = [0x50, 0x4b, 1, 2]
    let candidates = 0..<(lying.count - 4)
    let first = try #require(
      candidates.first { Array(lying[$0..<($0 + 4)]) == signature })
    // index.html's central record: its uncompressed size at +24, its local header's at +22.
    let size = Int(lying[first + 24]) | Int(lying[first + 25]) << 8
    let shorter = size - 1
    lying[first + 24] = UInt8(shorter & 0xff)
    lying[first + 25] = UInt8((shorter >> 8) & 0xff)
    lying[22] = UInt8(shorter & 0xff)
    lying[23] = UInt8((shorter >> 8) & 0xff)
    #expect(throws: ZipError.self) { try ZipArchive(bytes: lying) }
  }

  /// An archive whose directory claims more expanded bytes than a phone would hold is refused
  /// from the directory alone, before any entry is inflated.
  @Test func anArchiveClaimingGigabytesIsRefusedFromItsDirectory() throws {
    var central: [UInt8] = []
    var out: [UInt8] = []
    for index in 0..<3 {
      let name = Array("part\(index).bin".utf8)
      let offset = out.count
      // Deflated entries claiming gigabytes: refused from the claims, before any is inflated.
      out +=
        Self.le32(0x0403_4b50) + Self.le16(20) + Self.le16(0) + Self.le16(8) + Self.le16(0)
        + Self.le16(0) + Self.le32(0) + Self.le32(1) + Self.le32(Int(UInt32.max - 1))
        + Self.le16(name.count) + Self.le16(0) + name + [0]
      central +=
        Self.le32(0x0201_4b50) + Self.le16(20) + Self.le16(20) + Self.le16(0) + Self.le16(8)
        + Self.le16(0) + Self.le16(0) + Self.le32(0) + Self.le32(1) + Self.le32(Int(UInt32.max - 1))
        + Self.le16(name.count) + Self.le16(0) + Self.le16(0) + Self.le16(0) + Self.le16(0)
        + Self.le32(0) + Self.le32(offset) + name
    }
    let bytes = out + central + Self.end(count: 3, size: central.count, at: out.count)
    #expect(throws: ZipError.self) { try ZipArchive(bytes: bytes) }
    do {
      _ = try ZipArchive(bytes: bytes)
    } catch let error as ZipError {
      #expect(error.description.contains("expand to more than 512 MiB"), "\(error)")
    }
  }
}
