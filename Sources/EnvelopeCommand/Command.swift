import EnvelopeKit
import Foundation

/// The `envelope` command: `inspect`, `query` and `models` over response bodies.
package enum Command {
  /// What a run printed and how it ended.
  package struct Outcome: Equatable {
    /// Standard output.
    package var output: String
    /// Standard error: one line for a failure.
    package var error: String
    /// 0 success, 1 a missing path, 2 bad input or usage.
    package var status: Int32
  }

  /// A failure with its message and exit code.
  struct Failure: Error {
    var message: String
    var status: Int32 = 2
  }

  package static let usage = """
    usage: envelope inspect FILE [--format code,msg,data[,success codes]]
           envelope query FILE PATH
           envelope models FILE... [--name Root] [--at PATH] [--envelope]
                           [--format code,msg,data[,success codes]] [--public] [--var]
                           [--enums] [--require-keys]
      models: Codable structs for every sample given, with the decoder they are written for
      (LenientDecoder.forRoot(), built on forRoot(_ base:) that adds them to any decoder, so
      several sets share one provider). An object whose keys are data is [String: T]; objects
      of one shape are one type; a key whose string values pick the shape of the object or of
      a sibling (type + payload) is a TaggedDecodable enum with an unknown case.
      --enums         a string key with a small closed set of values is an enum whose unknown
                      case lenient decoding falls back to (CaseDefaultable)
      --require-keys  the decoder sets missingKeys = .error: a required key missing or null
                      is an error, never a default
    """

  /// Runs the command line (without the program name).
  ///
  /// - Parameters:
  ///   - arguments: e.g. `["query", "body.json", "data.items"]`.
  ///   - read: reads a file; `Data(contentsOf:)` in the executable.
  /// - Returns: what to print and the exit status.
  package static func run(_ arguments: [String], read: (String) throws -> Data) -> Outcome {
    do {
      guard let verb = arguments.first else { throw Failure(message: usage) }
      let rest = Array(arguments.dropFirst())
      // `envelope models --help` asks for help, as `envelope --help` does.
      if rest.contains(where: { $0 == "--help" || $0 == "-h" }) {
        return Outcome(output: usage + "\n", error: "", status: 0)
      }
      switch verb {
      case "inspect": return Outcome(output: try inspect(rest, read: read), error: "", status: 0)
      case "query": return Outcome(output: try query(rest, read: read), error: "", status: 0)
      case "models": return Outcome(output: try models(rest, read: read), error: "", status: 0)
      case "-h", "--help", "help": return Outcome(output: usage + "\n", error: "", status: 0)
      default: throw Failure(message: "unknown command \(verb)\n\(usage)")
      }
    } catch let failure as Failure {
      return Outcome(output: "", error: failure.message + "\n", status: failure.status)
    } catch {
      return Outcome(output: "", error: "\(error)\n", status: 2)
    }
  }

  // MARK: - Commands

  static func inspect(_ arguments: [String], read: (String) throws -> Data) throws -> String {
    var options = try Options(arguments, flags: ["--format": true])
    let file = try options.single("FILE")
    let format = try options.value("--format").map(parseFormat)?.format ?? .default
    let json = try document(file, read: read)
    var lines: [String] = []
    do {
      let status = try LenientDecoder().envelopeStatus(from: json.data, format: format)
      lines.append(
        "status   \(status.isSuccess ? "success" : "failure")  code \(status.code.map { "\($0)" } ?? "none")"
          + "  message \(status.message.map { "\"\($0)\"" } ?? "none")")
    } catch {
      lines.append("status   none (\(error))")
    }
    let root = json.value[format.data] ?? json.value
    let prefix = json.value[format.data] == nil ? "" : format.data.description
    var outline: [(String, String, String)] = []
    Outline.walk(root, path: prefix, into: &outline)
    let width = outline.map(\.0.count).max() ?? 0
    let kindWidth = outline.map(\.1.count).max() ?? 0
    for (path, kind, example) in outline {
      lines.append(
        path.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
          + kind.padding(toLength: kindWidth, withPad: " ", startingAt: 0) + "  " + example)
    }
    return lines.joined(separator: "\n") + "\n"
  }

  static func query(_ arguments: [String], read: (String) throws -> Data) throws -> String {
    var options = try Options(arguments, flags: [:])
    let (file, path) = try options.pair("FILE", "PATH")
    let json = try document(file, read: read)
    let jsonPath = parsePath(path)
    guard let value = json.value[jsonPath] else {
      throw Failure(message: "\(file): no value at \(path)", status: 1)
    }
    if case .string(let text) = value { return text + "\n" }
    return value.rawText + "\n"
  }

  static func models(_ arguments: [String], read: (String) throws -> Data) throws -> String {
    let options = try Options(
      arguments,
      flags: [
        "--name": true, "--at": true, "--envelope": false, "--format": true, "--public": false,
        "--var": false, "--enums": false, "--require-keys": false,
      ])
    let files = options.positional
    guard !files.isEmpty else { throw Failure(message: "models needs at least one FILE\n\(usage)") }
    var writing = ModelWriter.Options()
    writing.rootName = try options.value("--name") ?? "Root"
    writing.envelope = options.has("--envelope")
    writing.isPublic = options.has("--public")
    writing.isMutable = options.has("--var")
    writing.enums = options.has("--enums")
    writing.requireKeys = options.has("--require-keys")
    writing.files = files.map { URL(fileURLWithPath: $0).lastPathComponent }
    writing.path = try options.value("--at")
    var path = writing.path.map(parsePath) ?? .root
    let format = try options.value("--format").map(parseFormat)
    if let format {
      writing.envelope = true
      writing.format = format.swift
    }
    if writing.envelope {
      path = (format?.format ?? .default).data.appending(path)
    }
    var shape = Shape.unknown
    for file in files {
      let json = try document(file, read: read)
      // The header's decoder must read every sample: one the format calls a failure is refused.
      if let format {
        let status = try? LenientDecoder().envelopeStatus(from: json.data, format: format.format)
        guard let status, status.isSuccess else {
          let code = status?.code.map { "code \($0)" } ?? "no code"
          throw Failure(
            message: "\(file): not a success under --format \(format.text) (\(code)); "
              + "a string code is written in quotes: \"000\"")
        }
      }
      guard let value = json.value[path] else {
        throw Failure(message: "\(file): no value at \(path.description)", status: 1)
      }
      shape = shape.merged(with: Shape(value))
    }
    return ModelWriter.source(for: shape, options: writing)
  }

  // MARK: - Input

  /// A file read and parsed; a read or syntax error names the file, line and column.
  private static func document(_ file: String, read: (String) throws -> Data) throws -> (
    data: Data, value: JSON
  ) {
    let data: Data
    do {
      data = try read(file)
    } catch {
      throw Failure(message: "\(file): cannot read: \(error.localizedDescription)")
    }
    do {
      return (data, try JSON(data: data))
    } catch let error as JSONReaderError {
      throw Failure(message: "\(file):\(error.line):\(error.column): \(error.reasonText)")
    } catch {
      throw Failure(message: "\(file): \(error)")
    }
  }

  /// `data.items[3].price`, `data.items.3.price` or `data>items>3` (the library's rule, with
  /// each `[digits]` read as `.digits`); any other bracket is part of its key (`tags[]`, `[`).
  static func parsePath(_ text: String) -> JSONPath {
    guard text.contains(".") || text.contains("[") else { return JSONPath(text) }
    var dotted = ""
    var rest = Substring(text)
    while let open = rest.firstIndex(of: "[") {
      dotted += rest[..<open]
      let after = rest[rest.index(after: open)...]
      let digits = after.prefix { $0.isASCII && $0.isNumber }
      if !digits.isEmpty, after.dropFirst(digits.count).first == "]" {
        dotted += "." + digits
        rest = after.dropFirst(digits.count + 1)
      } else {
        dotted += "["
        rest = after
      }
    }
    dotted += rest
    return JSONPath(dotted.hasPrefix(".") ? String(dotted.dropFirst()) : dotted)
  }

  /// A `--format` as given, read, and written as the Swift expression that builds it.
  struct ParsedFormat {
    var text: String
    var format: EnvelopeFormat
    /// `EnvelopeFormat(code: "retStatus", message: "retMsg", data: "retBody", success: ["000"])`.
    var swift: String
  }

  /// `code,msg,data`, `error>status,error>message,results`, then optional success codes
  /// (`retStatus,retMsg,retBody,"000"`, `error,errMsg,results,false`); success is 0 by default.
  /// A number that is not written as JSON writes it (`000`, `+1`, `01`) is the string it is in a
  /// body, quoted or not: a shell drops the quotes of `"000"`.
  static func parseFormat(_ text: String) throws -> ParsedFormat {
    let parts = text.split(separator: ",").map(String.init)
    guard parts.count >= 3 else {
      throw Failure(message: "--format needs code,message,data paths, found \(text)")
    }
    func path(_ part: String) -> JSONPath { JSONPath(part) }
    var success: [EnvelopeCode] = []
    var literals: [String] = []
    func add(_ code: EnvelopeCode, _ literal: String) {
      guard !success.contains(code) else { return }
      success.append(code)
      literals.append(literal)
    }
    for code in parts.dropFirst(3) {
      switch code {
      case "true": add(true, "true")
      case "false": add(false, "false")
      case _ where code.hasPrefix("\"") && code.hasSuffix("\"") && code.count >= 2:
        let string = String(code.dropFirst().dropLast())
        add(EnvelopeCode(stringLiteral: string), Names.literal(string))
      default:
        if let number = Int(code), String(number) == code {
          add(EnvelopeCode(integerLiteral: number), code)
        } else if !code.isEmpty,
          code.allSatisfy({ $0.isASCII && ($0.isNumber || "+-".contains($0)) })
        {
          add(EnvelopeCode(stringLiteral: code), Names.literal(code))
        } else {
          throw Failure(
            message: "--format: success code \(code) is not a number, bool or \"string\"")
        }
      }
    }
    if success.isEmpty { add(0, "0") }
    let format = EnvelopeFormat(
      code: path(parts[0]), messages: [path(parts[1])], data: path(parts[2]),
      success: Set(success))
    let swift =
      "EnvelopeFormat(code: \(Names.literal(parts[0])), message: \(Names.literal(parts[1])), "
      + "data: \(Names.literal(parts[2])), success: [\(literals.joined(separator: ", "))])"
    return ParsedFormat(text: text, format: format, swift: swift)
  }
}

/// Flags and positional arguments.
struct Options {
  var positional: [String] = []
  private var values: [String: String] = [:]
  private var present: Set<String> = []

  /// Splits arguments into flags and positional ones.
  ///
  /// - Parameters:
  ///   - arguments: the arguments after the command.
  ///   - flags: known flags, and whether each takes a value.
  /// - Throws: `Command.Failure` for an unknown flag or a missing value.
  init(_ arguments: [String], flags: [String: Bool]) throws {
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      if argument.hasPrefix("--") {
        guard let takesValue = flags[argument] else {
          throw Command.Failure(message: "unknown flag \(argument)\n\(Command.usage)")
        }
        present.insert(argument)
        if takesValue {
          guard index + 1 < arguments.count else {
            throw Command.Failure(message: "\(argument) needs a value")
          }
          values[argument] = arguments[index + 1]
          index += 1
        }
      } else {
        positional.append(argument)
      }
      index += 1
    }
  }

  func has(_ flag: String) -> Bool { present.contains(flag) }

  func value(_ flag: String) throws -> String? { values[flag] }

  mutating func single(_ name: String) throws -> String {
    guard positional.count == 1 else {
      throw Command.Failure(message: "expected one \(name)\n\(Command.usage)")
    }
    return positional[0]
  }

  mutating func pair(_ first: String, _ second: String) throws -> (String, String) {
    guard positional.count == 2 else {
      throw Command.Failure(message: "expected \(first) \(second)\n\(Command.usage)")
    }
    return (positional[0], positional[1])
  }
}
