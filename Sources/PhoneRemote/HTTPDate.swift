import Foundation

/// The `Date` header's value (RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), formatted when a response
/// is written. Hummingbird's `Application` keeps it in a cache refreshed by a 1 s timer instead, which would wake an
/// idle kiosk every second; one response costs one `gmtime_r` here, and an idle kiosk costs nothing.
enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `seconds` since the Unix epoch as an IMF-fixdate (English names, whatever the process's locale).
    static func format(secondsSinceEpoch seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = Int(parts.tm_year) + 1900
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    static var now: String { format(secondsSinceEpoch: Int(Date().timeIntervalSince1970)) }
}
