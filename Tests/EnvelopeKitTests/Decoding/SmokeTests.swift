import Foundation
import Testing
@testable import EnvelopeKit

struct SUser: Codable, Equatable { var id: Int; var name: String; var tags: [String]; var age: Int?; var nested: SNested }
struct SNested: Codable, Equatable { var flag: Bool; var score: Double }

@Test func smoke() throws {
  let json = #"{"id":"18","name":12345678901234567890,"tags":["a",null,3],"age":"x","nested":"{\"flag\":\"yes\",\"score\":\"1.5\"}"}"#
  let r = try LenientDecoder().decodeWithReport(SUser.self, from: Data(json.utf8))
  print(r.value)
  print(r.report)
  var strict = LenientDecoder(); strict.policy = .strict
  do { _ = try strict.decode(SUser.self, from: Data(json.utf8)) } catch { print("STRICT", error) }
  let items = try LenientDecoder().decode([Int].self, from: Data(#"{"data":{"items":[1,"2",3.0,"x",null]}}"#.utf8), at: "data.items")
  print(items)
  let env = try LenientDecoder().decodeEnvelope(SNested.self, from: Data(#"{"code":0,"msg":"ok","data":{"flag":true,"score":2}}"#.utf8))
  print(env)
  do { _ = try LenientDecoder().decodeEnvelope(SNested.self, from: Data(#"{"code":1001,"msg":"token expired","data":null}"#.utf8)) } catch { print(error) }
  let d = JSONDecoder(); d.userInfo[.decodingPath] = JSONPath("data.items.1")
  print(try d.decode(DecodableWrapper<Int>.self, from: Data(#"{"data":{"items":[1,2,3]}}"#.utf8)).value)
  let rm = try JSONDecoder().decode(RootModel<SNested>.self, from: Data(#"{"code":"0","msg":"ok","data":{"flag":true,"score":2}}"#.utf8))
  print(rm.code as Any, try rm.validate())
}
