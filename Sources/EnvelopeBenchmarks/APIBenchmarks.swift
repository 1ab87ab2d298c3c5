import EnvelopeKit
import Foundation

/// Real public API responses decoded with the models and the decoder `envelope models` writes for
/// them (`scripts/generate-api-models.sh`), against `JSONDecoder` with the same key and date
/// strategies, in the same run. `--api` runs these rows alone.
@MainActor func apiBenchmarks() throws {
  try apiRow(GitHubEventsAPI.GitHubEvents.self, "github_events.json", GitHubEventsAPI.decoder)
  try apiRow(TwitterAPI.TwitterResponse.self, "twitter_api_response.json", TwitterAPI.decoder)
  try apiRow(
    GoogleMapsAPI.DistanceMatrix.self, "google_maps_api_response.json", GoogleMapsAPI.decoder)
  try apiRow(
    TwitterTimelineAPI.TwitterTimeline.self, "twitter.json", TwitterTimelineAPI.decoder)
}

@MainActor private func apiRow<T: Codable>(
  _ type: T.Type, _ file: String, _ decoder: (DecodingPolicy) -> LenientDecoder
) throws {
  guard let data = load(file) else {
    print("SKIPPED \(file): ../shared/data/payloads is absent")
    return
  }
  let foundation = JSONDecoder()
  foundation.keyDecodingStrategy = .convertFromSnakeCase
  foundation.dateDecodingStrategy = .iso8601
  let lenient = decoder(.lenient)
  let strict = decoder(.strict)
  // Both read the same values: the same bytes when written back by one encoder.
  let encoder = JSONEncoder()
  encoder.outputFormatting = .sortedKeys
  let theirs = try encoder.encode(try foundation.decode(T.self, from: data))
  let ours = try lenient.decodeWithReport(T.self, from: data)
  check(
    try encoder.encode(ours.value) == theirs,
    "\(file): generated models read the same values as JSONDecoder")
  check(ours.report.isEmpty, "\(file): lenient report is empty on the sample of the models")

  let iterations = max(1, (quick ? 2_000_000 : 8_000_000) / data.count)
  var comparison = Comparison(
    title: "\(file): generated models and decoder (envelope models)", bytes: data.count,
    iterations: iterations)
  comparison.add("Foundation JSONDecoder, same strategies") {
    _ = try foundation.decode(T.self, from: data)
  }
  comparison.add("LenientDecoder (lenient)") { _ = try lenient.decode(T.self, from: data) }
  comparison.add("LenientDecoder (strict)") { _ = try strict.decode(T.self, from: data) }
  let times = try comparison.report(rounds: rounds)
  summary.append(
    String(
      format: "%-30@ generated models: lenient %5.2fx, strict %5.2fx JSONDecoder",
      file as NSString, times[0] / times[1], times[0] / times[2]))
}

/// `--profile-api FILE`: decodes one real API response with its generated models in a loop, for
/// `perf record`.
@MainActor func profileAPI(_ file: String) throws {
  guard let data = load(file) else { return }
  let loops = max(1, 400_000_000 / data.count)
  // One decoder for every decode, as `--api` times it (making one is not what is profiled).
  let github = GitHubEventsAPI.decoder()
  let twitter = TwitterAPI.decoder()
  let maps = GoogleMapsAPI.decoder()
  let timeline = TwitterTimelineAPI.decoder()
  for _ in 0..<loops {
    switch file {
    case "github_events.json":
      _ = try github.decode(GitHubEventsAPI.GitHubEvents.self, from: data)
    case "twitter_api_response.json":
      _ = try twitter.decode(TwitterAPI.TwitterResponse.self, from: data)
    case "google_maps_api_response.json":
      _ = try maps.decode(GoogleMapsAPI.DistanceMatrix.self, from: data)
    default:
      _ = try timeline.decode(TwitterTimelineAPI.TwitterTimeline.self, from: data)
    }
  }
}
