import EnvelopeKit
import Foundation
import Testing

/// An all-digit path component indexes an array, and names a member of an object (RFC 6901's
/// rule): `"data.users.18"` reads the user keyed `"18"`, as a MoyaMapper path pasted as written
/// (`"data>users>18"`) does there. A component with a leading zero (`"007"`) is a key, never the
/// index 7, so it can never read another member.
@Suite struct DigitKeyPathTests {
  struct Case: Sendable, CustomTestStringConvertible {
    var body: String
    var path: String
    var expected: String?
    var testDescription: String { "\(path) in \(body)" }
  }

  static let cases: [Case] = [
    Case(body: #"{"data":{"users":{"18":"Ada"}}}"#, path: "data.users.18", expected: "Ada"),
    Case(body: #"{"data":{"users":{"18":"Ada"}}}"#, path: "data>users>18", expected: "Ada"),
    Case(body: #"{"data":{"users":["a","b"]}}"#, path: "data.users.1", expected: "b"),
    Case(
      body: #"{"data":{"0":"zero","7":"seven","007":"bond"}}"#, path: "data.0", expected: "zero"),
    Case(
      body: #"{"data":{"0":"zero","7":"seven","007":"bond"}}"#, path: "data.007", expected: "bond"),
    Case(body: #"{"data":{"7":"seven"}}"#, path: "data.007", expected: nil),
    Case(body: #"{"data":["a","b"]}"#, path: "data.01", expected: nil),
    Case(body: #"{"data":{"2024":{"q":["x","y"]}}}"#, path: "data.2024.q.1", expected: "y"),
  ]

  @Test(arguments: cases)
  func rawAccess(_ test: Case) throws {
    let json = try JSON(data: Data(test.body.utf8))
    #expect(json[JSONPath(test.path)]?.stringValue == test.expected)
  }

  @Test(arguments: cases)
  func decodeAtPath(_ test: Case) throws {
    let decoder = LenientDecoder()
    if let expected = test.expected {
      #expect(try decoder.decode(String.self, from: test.body, at: JSONPath(test.path)) == expected)
      // Any Decoder: Foundation's, and ours through the same wrapper.
      let foundation = JSONDecoder()
      foundation.userInfo[.decodingPath] = JSONPath(test.path)
      let wrapped = try foundation.decode(DecodableWrapper<String>.self, from: Data(test.body.utf8))
      #expect(wrapped.value == expected)
      var lenient = LenientDecoder()
      lenient.userInfo[.decodingPath] = JSONPath(test.path)
      let ours = try lenient.decodeWithReport(DecodableWrapper<String>.self, from: test.body)
      #expect(ours.value.value == expected)
      #expect(ours.report.isEmpty)
    } else {
      #expect(throws: DecodingError.self) {
        try decoder.decode(String.self, from: test.body, at: JSONPath(test.path))
      }
      #expect(try decoder.decode(String?.self, from: test.body, at: JSONPath(test.path)) == nil)
    }
  }

  @Test func envelopePathsAndMappingsReadDigitKeys() throws {
    struct User: Decodable, Equatable { var id: Int; var name: String }
    let body = #"{"code":0,"data":{"users":{"18":{"id":"18","name":"Ada"}}}}"#
    let decoder = LenientDecoder()
    let result = try decoder.decodeEnvelopeWithReport(
      User.self, from: Data(body.utf8), at: "users.18")
    #expect(result.value == User(id: 18, name: "Ada"))
    #expect(result.report.entries.map(\.path) == ["data.users.18.id"])
    struct Owner: Decodable { var name: String }
    var mapping = LenientDecoder()
    mapping.map(Owner.self, key: "name", to: "users.18.name")
    #expect(try mapping.decode(Owner.self, from: body, at: "data").name == "Ada")
  }

  @Test func aMissingDigitKeyNamesTheKey() throws {
    let error = try #require(throws: DecodingError.self) {
      try LenientDecoder().decode(String.self, from: #"{"data":{"17":"x"}}"#, at: "data.18")
    }
    #expect("\(error)".contains("18"))
  }
}
