import Foundation

#if !FUZZING
  @testable import EnvelopeKit
#endif

// The oracle of the promise "what the decoder reads, the matching encoder writes": for generated
// keys of every case style (snake, camel, Pascal, acronyms, digits, leading, trailing and double
// underscores, kebab, spaces, unicode) and each key decoding strategy, a model decoded by a
// `LenientDecoder` and encoded by `ModelEncoder(matching:)` reads back as the same model
// (decode → encode → decode is the identity). A model whose keys were not read from JSON (any
// `CodingKeys` a type may declare) reads back the same too, or the encode throws because no JSON
// key reads back as one of them, which the decoder itself confirms. `EncodingOracle.runOne`
// runs it, so the seeded differential and `Fuzz/EncodingFuzzTarget.swift` both check it.

/// A model with any keys: the keys the decoder reads (`allKeys`, then each by `forKey`), written
/// back under the same keys.
struct GKeyed: Codable, Equatable, CustomStringConvertible {
  var values: [String: Int]

  init(_ values: [String: Int]) { self.values = values }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: AnyKey.self)
    var values: [String: Int] = [:]
    for key in container.allKeys {
      values[key.stringValue] = try container.decode(Int.self, forKey: key)
    }
    self.values = values
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: AnyKey.self)
    for (name, value) in values.sorted(by: { $0.key < $1.key }) {
      try container.encode(value, forKey: AnyKey(name))
    }
  }

  var description: String { "\(values.sorted { $0.key < $1.key })" }
}

enum KeyRoundTripOracle {
  /// The key decoding strategies checked: every case, and two custom ones (PascalCase APIs
  /// read into camelCase properties; one that reads every key in lower case).
  static let strategies: [(name: String, strategy: LenientDecoder.KeyDecodingStrategy)] = [
    ("useDefaultKeys", .useDefaultKeys),
    ("convertFromSnakeCase", .convertFromSnakeCase),
    ("custom lowerFirst", .custom({ path in AnyKey(lowerFirst(path.last?.stringValue ?? "")) })),
    ("custom lowercased", .custom({ path in AnyKey((path.last?.stringValue ?? "").lowercased()) })),
  ]

  static func lowerFirst(_ name: String) -> String {
    guard let first = name.first else { return name }
    return first.lowercased() + name.dropFirst()
  }

  static let words = [
    "adaptive", "Plugin", "URL", "SCM", "SCTM", "Executor", "id", "ID", "v2", "2", "10", "x", "A",
    "b", "é", "Ñandú", "ß", "ǅ", "Σ", "😀", "key", "Key", "HTTPS", "json",
  ]
  static let separators = ["", "", "", "_", "__", "-", " ", "."]

  /// A key in a generated case style.
  static func key<S: EntropySource>(_ source: inout S) -> String {
    var key = ["", "", "", "_", "__"][source.next(5)]
    for index in 0..<(1 + source.next(3)) {
      if index > 0 { key += separators[source.next(separators.count)] }
      key += words[source.next(words.count)]
    }
    key += ["", "", "", "_", "__"][source.next(5)]
    return key
  }

  /// One generated case: keys, a strategy, both directions of the round trip.
  static func runOne<S: EntropySource>(
    _ source: inout S, into outcome: inout EncodingOracle.Outcome
  ) {
    let (name, strategy) = strategies[source.next(strategies.count)]
    var decoder = LenientDecoder(policy: source.next(2) == 0 ? .strict : .lenient)
    decoder.keyDecodingStrategy = strategy
    let keys = (0..<(1 + source.next(6))).map { _ in key(&source) }
    let values = Dictionary(keys.enumerated().map { ($0.element, $0.offset) }) { first, _ in first }

    // JSON → decode → encode → decode: the model read from JSON reads back the same.
    let object = text(values.sorted { $0.value < $1.value }.map { ($0.key, $0.value) })
    do {
      let model = try decoder.decode(GKeyed.self, from: Data(object.utf8))
      check(model, decoder, name, thrown: "a model read from \(object)", into: &outcome)
    } catch {
      outcome.violations.append("keys \(name): \(object) did not decode: \(error)")
    }

    // Keys as a model declares them (not read from JSON): the same model, or a thrown error
    // when the decoder reads no JSON key as one of them.
    check(GKeyed(values), decoder, name, thrown: nil, into: &outcome)
  }

  /// A JSON object of `members`, in their order.
  static func text(_ members: [(String, Int)]) -> String {
    "{" + members.map { JSON.string($0.0).rawText + ":\($0.1)" }.joined(separator: ",") + "}"
  }

  /// Encodes `model` with `ModelEncoder(matching: decoder)` and decodes it again. `thrown`
  /// describes a model that may not throw; nil: it may throw only for a key nothing reads back.
  static func check(
    _ model: GKeyed, _ decoder: LenientDecoder, _ name: String, thrown: String?,
    into outcome: inout EncodingOracle.Outcome
  ) {
    let encoded: Data
    do {
      encoded = try ModelEncoder(matching: decoder).encode(model)
    } catch {
      if let thrown {
        outcome.violations.append("keys \(name): \(thrown) did not encode: \(error)")
        return
      }
      guard case EncodingError.invalidValue(let value, _) = error, let key = value as? String,
        model.values[key] != nil
      else {
        outcome.violations.append("keys \(name): \(model) threw \(error), naming no key of it")
        return
      }
      // The decoder itself reads none of the likely spellings as `key`.
      let spellings = [
        key, convertToSnakeCase(key), key.lowercased(), key.uppercased(), lowerFirst(key),
        key.replacingOccurrences(of: "_", with: ""),
      ]
      for spelling in spellings {
        let one = text([(spelling, 1)])
        if let read = try? decoder.decode(GKeyed.self, from: Data(one.utf8)), read.values[key] == 1
        {
          outcome.violations.append(
            "keys \(name): \(model) threw for \"\(key)\", which the decoder reads from \(one)")
        }
      }
      outcome.threw += 1
      return
    }
    outcome.roundTrips += 1
    let text = String(decoding: encoded, as: UTF8.self)
    do {
      let again = try decoder.decode(GKeyed.self, from: encoded)
      if again != model {
        outcome.violations.append("keys \(name): \(model) wrote \(text), read back \(again)")
      }
    } catch {
      outcome.violations.append("keys \(name): \(model) wrote \(text), which threw \(error)")
    }
  }
}
