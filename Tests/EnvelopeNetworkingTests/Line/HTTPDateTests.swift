import Foundation
import Testing

@testable import EnvelopeNetworking

/// HTTP dates (RFC 9110 §5.6.7), the obsolete RFC 850 form with its two-digit year above all.
struct HTTPDateTests {
  private static var gmt: Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "GMT") ?? calendar.timeZone
    return calendar
  }

  /// 6 November of `year`, 08:49:37 GMT.
  private static func november6(_ year: Int) -> Date? {
    gmt.date(from: DateComponents(year: year, month: 11, day: 6, hour: 8, minute: 49, second: 37))
  }

  /// `date` written in `format` (English names, GMT).
  private static func text(_ date: Date, _ format: String) -> String {
    let formatter = DateFormatter()
    formatter.calendar = gmt
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = gmt.timeZone
    formatter.dateFormat = format
    return formatter.string(from: date)
  }

  /// The year RFC 9110 gives `yy` at `now`: the one with those last two digits that is at most
  /// 50 years after `now`, else the century before.
  private static func year(_ yy: Int, at now: Date) -> Int {
    let thisYear = gmt.component(.year, from: now)
    var year = thisYear - thisYear % 100 + yy
    if year > thisYear + 50 { year -= 100 }
    if year < thisYear - 49 { year += 100 }
    return year
  }

  /// Every two-digit year, at three moments: a year 50 years ahead is still ahead, and one
  /// more than that is in the past (Foundation's default window reads `60` as 1960 in 2026).
  @Test(arguments: [1_700_000_000.0, 1_795_000_000, 4_100_000_000])
  func aTwoDigitYearIsWithinFiftyYearsOfNow(now seconds: Double) throws {
    let now = Date(timeIntervalSince1970: seconds)
    for yy in 0..<100 {
      let expected = try #require(Self.november6(Self.year(yy, at: now)))
      let text = Self.text(expected, "EEEE, dd-MMM-yy HH:mm:ss 'GMT'")
      #expect(HTTPDate.parse(text, now: now) == expected, "\(text) at \(now)")
    }
  }

  /// The two four-digit forms are read as written, whatever the year.
  @Test(arguments: [1900, 1970, 1994, 2026, 2060, 2099, 2500])
  func theOtherFormsKeepTheirYear(year: Int) throws {
    let date = try #require(Self.november6(year))
    for format in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
      let text = Self.text(date, format)
      #expect(HTTPDate.parse(text) == date, "\(text)")
    }
  }

  @Test(arguments: ["", "yesterday", "Sun, 06 Nov 1994", "06 Nov 1994 08:49:37 GMT", "1994-11-06"])
  func whatIsNoHTTPDateIsNil(text: String) {
    #expect(HTTPDate.parse(text) == nil)
  }
}
