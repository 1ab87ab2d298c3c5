import Foundation
import Testing

@testable import EnvelopeKit

/// Runs nst/JSONTestSuite from `../shared/data/JSONTestSuite`.
@Suite struct JSONTestSuiteTests {
  /// Implementation-defined cases that the reader accepts; every other `i_` case is rejected.
  /// Huge and tiny numbers are kept as text (a type decides later); lone surrogates, invalid
  /// UTF-8 and UTF-16 input are rejected, as Foundation's JSONDecoder does.
  static let acceptedImplementationDefined: Set<String> = [
    "i_number_double_huge_neg_exp.json", "i_number_huge_exp.json",
    "i_number_neg_int_huge_exp.json", "i_number_pos_double_huge_exp.json",
    "i_number_real_neg_overflow.json", "i_number_real_pos_overflow.json",
    "i_number_real_underflow.json", "i_number_too_big_neg_int.json",
    "i_number_too_big_pos_int.json", "i_number_very_big_negative_int.json",
    "i_structure_500_nested_arrays.json", "i_structure_UTF-8_BOM_empty_object.json",
  ]

  /// `test_transform` cases that the reader rejects (invalid code points, escaped or raw).
  static let rejectedTransforms: Set<String> = [
    "string_1_escaped_invalid_codepoint.json", "string_1_invalid_codepoint.json",
    "string_2_escaped_invalid_codepoints.json", "string_2_invalid_codepoints.json",
    "string_3_escaped_invalid_codepoints.json", "string_3_invalid_codepoints.json",
  ]

  static func outcome(_ file: URL) throws -> Bool {
    let data = try Data(contentsOf: file)
    do {
      _ = try JSON(data: data)
      return true
    } catch is JSONReaderError {
      return false
    }
  }

  @Test(.enabled(if: SharedData.has("JSONTestSuite/test_parsing"), "needs ../shared/data"))
  func parsingCasesMatchTheirPrefix() throws {
    let folder = try SharedData.folder("JSONTestSuite/test_parsing")
    let files = try SharedData.files(in: folder)
    #expect(files.count == 318)
    var counts = [String: Int]()
    for file in files {
      let name = file.lastPathComponent
      let accepted = try Self.outcome(file)
      switch name.prefix(2) {
      case "y_": #expect(accepted, "\(name) must be accepted")
      case "n_": #expect(!accepted, "\(name) must be rejected")
      default:
        #expect(accepted == Self.acceptedImplementationDefined.contains(name), "\(name)")
      }
      counts[String(name.prefix(2)), default: 0] += 1
    }
    #expect(counts == ["y_": 95, "n_": 188, "i_": 35])
  }

  @Test(.enabled(if: SharedData.has("JSONTestSuite/test_transform"), "needs ../shared/data"))
  func transformCasesArePinned() throws {
    let folder = try SharedData.folder("JSONTestSuite/test_transform")
    let files = try SharedData.files(in: folder)
    #expect(files.count == 22)
    for file in files {
      let name = file.lastPathComponent
      #expect(try Self.outcome(file) == !Self.rejectedTransforms.contains(name), "\(name)")
    }
  }

  @Test(.enabled(if: SharedData.has("JSONTestSuite/test_transform"), "needs ../shared/data"))
  func transformValuesAreExact() throws {
    let folder = try SharedData.folder("JSONTestSuite/test_transform")
    func value(_ name: String) throws -> JSON {
      try JSON(data: Data(contentsOf: folder.appendingPathComponent(name)))
    }
    #expect(
      try value("number_10000000000000000999.json")[[0]]?.stringValue == "10000000000000000999")
    #expect(
      try value("number_1.000000000000000005.json")[[0]]?.stringValue == "1.000000000000000005")
    #expect(try value("number_1e-999.json")[[0]]?.numberValue?.doubleValue == 0)
    #expect(try value("object_same_key_different_values.json") == .object(sameKey("a", 1)))
    #expect(try value("string_with_escaped_NULL.json")[[0]]?.stringValue == "A\u{0}B")
  }

  private func sameKey(_ key: String, _ value: Int) -> JSONObject {
    var object = JSONObject()
    object.append(key, .number(JSONNumber(value)))
    return object
  }
}
