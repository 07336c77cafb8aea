/// Lines no longer than the repository's 120 columns, for the generated rules.
enum TextWrap {
    static let width = 120

    /// The words of `text` (split at single spaces) in lines of at most ``width`` characters, the first
    /// starting with `prefix` and the others with `continuation`. A word longer than a line gets a line
    /// of its own.
    static func comment(_ text: String, prefix: String = "# ", continuation: String = "# ") -> [String] {
        items(text.split(separator: " ").map(String.init), separator: " ", prefix: prefix, continuation: continuation)
    }

    /// `items` joined by `separator` in lines of at most ``width`` characters.
    static func items(_ items: [String], separator: String, prefix: String, continuation: String) -> [String] {
        var lines: [String] = []
        var line = prefix
        var lineHasItem = false
        for item in items {
            if lineHasItem, line.count + separator.count + item.count > width {
                lines.append(line)
                line = continuation
                lineHasItem = false
            }
            line += (lineHasItem ? separator : "") + item
            lineHasItem = true
        }
        lines.append(line)
        return lines
    }

    /// One udev rule: its keys joined by ", ", continued with ` \` and four spaces of indent where the
    /// next key would pass ``width`` (the continuation marker included), as udev reads line continuations.
    static func rule(_ keys: [String]) -> [String] {
        var lines: [String] = []
        var indent = ""
        var line = ""
        for (index, key) in keys.enumerated() {
            let joined = line.isEmpty ? key : line + ", " + key
            let marker = index == keys.count - 1 ? 0 : ", \\".count
            if !line.isEmpty, indent.count + joined.count + marker > width {
                lines.append(indent + line + ", \\")
                indent = "    "
                line = key
            } else {
                line = joined
            }
        }
        lines.append(indent + line)
        return lines
    }
}
