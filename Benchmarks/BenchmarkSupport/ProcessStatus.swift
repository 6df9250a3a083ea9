import Foundation

/// A line of /proc/self/status in bytes: `VmRSS` (all resident memory, a store's mapped file pages
/// included) or `RssAnon` (anonymous memory: the heap, without mapped files); 0 when unreadable.
public func processStatusBytes(_ key: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") })
    else { return 0 }
    return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
}
