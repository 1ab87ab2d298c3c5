import EnvelopeKit
import Foundation

/// twitter `statuses` at a key path: ours vs a wrapper struct vs Moya's way.
@MainActor func keyPathBenchmarks() throws {
  guard let data = load("twitter.json") else { return }
  struct Wrapper: Decodable { var statuses: [TwitterStatuse] }
  let decoder = LenientDecoder()
  var comparison = Comparison(
    title: "twitter.json: statuses at a key path", bytes: data.count, iterations: quick ? 3 : 10)
  comparison.add("Moya way (parse, pick, re-serialise, decode)") {
    let object = try JSONSerialization.jsonObject(with: data)
    guard let statuses = (object as? [String: Any])?["statuses"] else { return }
    let picked = try JSONSerialization.data(withJSONObject: statuses)
    _ = try JSONDecoder().decode([TwitterStatuse].self, from: picked)
  }
  comparison.add("JSONDecoder, wrapper struct") {
    _ = try JSONDecoder().decode(Wrapper.self, from: data)
  }
  comparison.add("JSONDecoder + DecodableWrapper") {
    let foundation = JSONDecoder()
    foundation.userInfo[.decodingPath] = JSONPath("statuses")
    _ = try foundation.decode(DecodableWrapper<[TwitterStatuse]>.self, from: data)
  }
  comparison.add("LenientDecoder at \"statuses\"") {
    _ = try decoder.decode([TwitterStatuse].self, from: data, at: "statuses")
  }
  comparison.add("LenientDecoder, wrapper struct") {
    _ = try decoder.decode(Wrapper.self, from: data)
  }
  let times = try comparison.report(rounds: rounds)
  // The key path against its wrapper on their own, in alternating order: in the table above
  // the key path always runs right after a Foundation decode and the wrapper after the key
  // path, which measured the order as much as the paths.
  var pair = Comparison(
    title: "twitter.json: statuses at a key path and in a wrapper, alternating",
    bytes: data.count, iterations: quick ? 3 : 10)
  pair.add("LenientDecoder at \"statuses\"") {
    _ = try decoder.decode([TwitterStatuse].self, from: data, at: "statuses")
  }
  pair.add("LenientDecoder, wrapper struct") {
    _ = try decoder.decode(Wrapper.self, from: data)
  }
  let paired = try pair.run(rounds: 2 * rounds + 1, alternating: true)
  print(
    String(
      format: "\n%@\n  key path %.1f µs, wrapper %.1f µs: %+.1f%%", pair.title,
      paired[0] * 1e6, paired[1] * 1e6, (paired[0] / paired[1] - 1) * 100))
  let pathCost = paired[0] / paired[1] - 1
  summary.append(
    String(
      format:
        "statuses at a path: LenientDecoder %5.2fx Moya's way, %5.2fx JSONDecoder wrapper; %+.1f%% vs its own wrapper",
      times[0] / times[3], times[1] / times[3], pathCost * 100))
  check(pathCost <= 0.02, "a key path within 2% of the equivalent wrapper struct")
}

/// A small envelope decoded many times: per-call overhead.
@MainActor func envelopeBenchmark() throws {
  struct Item: Codable { var id: Int; var title: String; var price: Double; var tags: [String] }
  struct Payload: Codable { var total: Int; var page: Int; var items: [Item] }
  struct Envelope<T: Decodable>: Decodable { var code: Int; var msg: String; var data: T? }
  let items = (0..<8).map {
    Item(id: $0, title: "Item number \($0)", price: Double($0) * 1.25, tags: ["a", "b"])
  }
  let body = try JSONSerialization.data(
    withJSONObject: [
      "code": 0, "msg": "ok",
      "data": try JSONSerialization.jsonObject(
        with: JSONEncoder().encode(Payload(total: 8, page: 1, items: items))),
    ])
  let calls = quick ? 10_000 : 100_000
  let decoder = LenientDecoder()
  var comparison = Comparison(
    title: "envelope of \(body.count) bytes, \(calls) calls", bytes: 0, iterations: calls)
  comparison.add("JSONDecoder, generic envelope struct") {
    _ = try JSONDecoder().decode(Envelope<Payload>.self, from: body)
  }
  comparison.add("LenientDecoder.decodeEnvelope") {
    _ = try decoder.decodeEnvelope(Payload.self, from: body)
  }
  let times = try comparison.report(rounds: quick ? 3 : 5)
  summary.append(
    String(
      format: "small envelope (%d B): decodeEnvelope %5.2fx JSONDecoder", body.count,
      times[0] / times[1]))
  check(times[0] / times[1] >= 1.5, "small envelope: decodeEnvelope at least 1.5x JSONDecoder")
}
