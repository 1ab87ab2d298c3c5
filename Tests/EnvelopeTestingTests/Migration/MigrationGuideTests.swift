import Foundation
import Testing

// Every ```swift block of the migration guides (and of "Errors your app defines") is quoted from
// a snippet file of this folder, which `swift test` compiles (and mostly runs): a guide cannot
// show code that does not build.

/// One migration guide and where it lives.
struct MigrationGuide: Sendable, CustomTestStringConvertible {
  /// The article, relative to the package root.
  var path: String

  var testDescription: String { (path as NSString).lastPathComponent }

  static let all = [
    MigrationGuide(path: "Sources/EnvelopeNetworking/EnvelopeNetworking.docc/MigratingFromMoya.md"),
    MigrationGuide(path: "Sources/EnvelopeKit/EnvelopeKit.docc/MigratingFromLenientCodable.md"),
    MigrationGuide(
      path: "Sources/EnvelopeNetworking/EnvelopeNetworking.docc/MigratingFromRxSwift.md"),
    MigrationGuide(
      path: "Sources/EnvelopeNetworking/EnvelopeNetworking.docc/ErrorsYourAppDefines.md"),
  ]
}

/// Finds swift blocks in Markdown and checks them against the snippet files.
enum SnippetCheck {
  /// A fenced swift block: the line of its opening fence (from 1) and its lines.
  struct Block: Equatable {
    var line: Int
    var lines: [String]
  }

  struct UnterminatedBlock: Error, CustomStringConvertible {
    var line: Int
    var description: String { "the swift block opened at line \(line) is never closed" }
  }

  /// The package root: three folders above this file's folder.
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// The folder of the snippet files (this file's).
  static let snippetFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

  /// The ```swift blocks of `markdown`, in order.
  static func swiftBlocks(in markdown: String) throws -> [Block] {
    var blocks: [Block] = []
    var open: Block?
    for (index, raw) in markdown.components(separatedBy: "\n").enumerated() {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if var block = open {
        if line == "```" {
          blocks.append(block)
          open = nil
        } else {
          block.lines.append(raw)
          open = block
        }
      } else if line == "```swift" {
        open = Block(line: index + 1, lines: [])
      }
    }
    if let open { throw UnterminatedBlock(line: open.line) }
    return blocks
  }

  /// The lines of `lines` with surrounding whitespace trimmed, blank ones left out.
  static func normalized(_ lines: [String]) -> [String] {
    lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
  }

  /// Nil when `block` (normalized) is a consecutive run of lines in one of `sources`
  /// (normalized); otherwise the first line of the block past the longest run found.
  static func firstMissingLine(of block: [String], in sources: [[String]]) -> String? {
    let wanted = normalized(block)
    guard !wanted.isEmpty else { return "(an empty swift block)" }
    var longest = 0
    for source in sources {
      let lines = normalized(source)
      for start in lines.indices {
        var count = 0
        while count < wanted.count, start + count < lines.count,
          lines[start + count] == wanted[count]
        {
          count += 1
        }
        if count == wanted.count { return nil }
        longest = max(longest, count)
      }
    }
    return wanted[longest]
  }

  /// The problems of one article: each a sentence naming the article.
  static func problems(article name: String, markdown: String, sources: [[String]]) -> [String] {
    let blocks: [Block]
    do {
      blocks = try swiftBlocks(in: markdown)
    } catch {
      return ["\(name): \(error)"]
    }
    guard !blocks.isEmpty else { return ["\(name): has no swift block"] }
    return blocks.compactMap { block in
      firstMissingLine(of: block.lines, in: sources).map {
        "\(name): the swift block at line \(block.line) is not quoted from a snippet file in "
          + "Tests/EnvelopeTestingTests/Migration; first line not found: \($0)"
      }
    }
  }

  /// The lines of every snippet file (every Swift file of the folder but this one).
  static func snippetSources() throws -> [[String]] {
    let files = try FileManager.default.contentsOfDirectory(
      at: snippetFolder, includingPropertiesForKeys: nil)
    return try files.filter {
      $0.pathExtension == "swift" && $0.lastPathComponent != "MigrationGuideTests.swift"
    }.map { try String(contentsOf: $0, encoding: .utf8).components(separatedBy: "\n") }
  }
}

@Suite struct MigrationGuideTests {
  @Test(arguments: MigrationGuide.all)
  func everySwiftBlockIsQuotedFromCompiledCode(guide: MigrationGuide) throws {
    let file = SnippetCheck.packageRoot.appendingPathComponent(guide.path)
    let markdown = try #require(
      try? String(contentsOf: file, encoding: .utf8), "\(guide.path) is missing")
    let sources = try SnippetCheck.snippetSources()
    #expect(sources.count >= 3, "the snippet files were not found in \(SnippetCheck.snippetFolder)")
    for problem in SnippetCheck.problems(article: guide.path, markdown: markdown, sources: sources)
    {
      Issue.record(Comment(rawValue: problem))
    }
  }

  // MARK: - The checker itself

  static let source = [
    "struct A {", "  func f() {", "    let x = 1", "", "    let y = 2", "  }", "}",
  ]

  @Test func aBlockQuotedWithOtherIndentationAndBlankLinesPasses() {
    let block = ["func f() {", "let x = 1", "let y = 2", "", "}"]
    #expect(SnippetCheck.firstMissingLine(of: block, in: [Self.source]) == nil)
  }

  @Test func anEditedLineIsNamed() {
    let block = ["func f() {", "let x = 1", "let y = 3"]
    #expect(SnippetCheck.firstMissingLine(of: block, in: [Self.source]) == "let y = 3")
  }

  @Test func linesOutOfOrderFail() {
    let block = ["let y = 2", "let x = 1"]
    #expect(SnippetCheck.firstMissingLine(of: block, in: [Self.source]) == "let x = 1")
  }

  @Test func anArticleWithoutSwiftBlocksFails() {
    let markdown = "# Guide\n\n```text\nprovider.rx.request(.x)\n```\n"
    let problems = SnippetCheck.problems(article: "G.md", markdown: markdown, sources: [])
    #expect(problems == ["G.md: has no swift block"])
  }

  @Test func anUnclosedBlockFails() {
    let markdown = "Text\n\n```swift\nlet x = 1\n"
    let problems = SnippetCheck.problems(
      article: "G.md", markdown: markdown, sources: [Self.source])
    #expect(problems == ["G.md: the swift block opened at line 3 is never closed"])
  }

  @Test func blocksAreFoundWithTheirLines() throws {
    let markdown = "a\n```swift\nlet x = 1\n```\n```text\nno\n```\n  ```swift\n  let y = 2\n  ```\n"
    let blocks = try SnippetCheck.swiftBlocks(in: markdown)
    #expect(
      blocks == [
        SnippetCheck.Block(line: 2, lines: ["let x = 1"]),
        SnippetCheck.Block(line: 8, lines: ["  let y = 2"]),
      ])
  }
}
