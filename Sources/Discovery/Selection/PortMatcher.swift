#if canImport(Glibc)
import Glibc
#endif

/// One entry of `[discovery] probe` or `[discovery] ignore`: which ports it names (docs/discovery.md,
/// "Matchers").
///
/// | Written | Matches a port when |
/// |---|---|
/// | `VVVV:PPPP` (`10c4:ea60`) | its USB vendor and product IDs are these (4 hex digits each, any case) |
/// | `by-id:NAME` | one of its links is `/dev/serial/by-id/NAME` |
/// | `by-path:NAME` | one of its links is `/dev/serial/by-path/NAME` |
/// | `serial:TEXT` | its USB serial number (`ID_SERIAL_SHORT`, else the USB device's `serial`) is TEXT |
/// | `/dev/…` | its device node, or one of its links (`DEVLINKS`), is this path |
///
/// NAME and TEXT may hold shell wildcards (`*`, `?`, `[…]`, as `fnmatch(3)`):
/// `by-id:usb-ITead_Sonoff_Zigbee_3.0_USB_Dongle_Plus_*` names every such dongle. USB IDs and paths
/// are compared exactly. Matching reads only the port's facts: a pure function.
///
/// ```swift
/// let matcher = try PortMatcher(parsing: "by-id:usb-Silicon_Labs_CP2102_*")
/// matcher.matches(port)   // true for /dev/ttyUSB0 with that link
/// ```
public enum PortMatcher: Sendable, Hashable, CustomStringConvertible {
    /// USB vendor and product IDs, lower-case hex.
    case usb(vendorID: String, productID: String)
    /// A glob on the name of a `/dev/serial/by-id/` link.
    case byID(String)
    /// A glob on the name of a `/dev/serial/by-path/` link.
    case byPath(String)
    /// A glob on the USB serial number.
    case serial(String)
    /// An absolute path under `/dev`: the node or one of its links.
    case path(String)

    /// The directory udev's stock rules (`60-serial.rules`) put the by-id links in.
    public static let byIDDirectory = "/dev/serial/by-id/"
    /// The directory udev's stock rules put the by-path links in.
    public static let byPathDirectory = "/dev/serial/by-path/"

    /// The forms, for messages.
    public static let forms =
        "VVVV:PPPP (USB IDs, 4 hex digits each, e.g. 10c4:ea60), by-id:NAME, by-path:NAME, serial:TEXT, "
        + "or a /dev path"

    /// Reads one entry; throws what is wrong with it and the forms it may take.
    public init(parsing text: String) throws(PortMatcherError) {
        guard !text.isEmpty else { throw PortMatcherError(text, "an empty entry names no port") }
        guard text.first?.isWhitespace != true, text.last?.isWhitespace != true else {
            throw PortMatcherError(text, "remove the spaces around it")
        }
        if text.hasPrefix("/") {
            guard text.hasPrefix("/dev/"), text.count > 5 else {
                throw PortMatcherError(text, "a path must be a device node or link under /dev")
            }
            guard !text.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else {
                throw PortMatcherError(text, "write the path without . or .. components")
            }
            self = .path(text)
            return
        }
        for (prefix, directory) in [("by-id:", Self.byIDDirectory), ("by-path:", Self.byPathDirectory)]
        where text.hasPrefix(prefix) {
            let name = String(text.dropFirst(prefix.count))
            guard !name.isEmpty else { throw PortMatcherError(text, "\(prefix) needs a link name after it") }
            guard !name.contains("/") else {
                throw PortMatcherError(
                    text,
                    "write the link's name only (\(prefix)NAME for \(directory)NAME), or the whole path "
                        + "\(directory)NAME without \(prefix)"
                )
            }
            self = prefix == "by-id:" ? .byID(name) : .byPath(name)
            return
        }
        if text.hasPrefix("serial:") {
            let serial = String(text.dropFirst("serial:".count))
            guard !serial.isEmpty else { throw PortMatcherError(text, "serial: needs the USB serial number after it") }
            self = .serial(serial)
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2, parts.allSatisfy({ $0.allSatisfy(\.isHexDigit) && !$0.isEmpty }) {
            guard parts.allSatisfy({ $0.count == 4 }) else {
                throw PortMatcherError(text, "USB vendor and product IDs are 4 hex digits each, e.g. 10c4:ea60")
            }
            self = .usb(vendorID: parts[0].lowercased(), productID: parts[1].lowercased())
            return
        }
        if parts.count >= 2, parts[0].allSatisfy({ $0.isLetter || $0 == "-" }), !parts[0].isEmpty {
            throw PortMatcherError(text, "unknown kind \"\(parts[0]):\"")
        }
        throw PortMatcherError(text, "not a port matcher")
    }

    /// Whether `port` is one this entry names.
    public func matches(_ port: UdevPort) -> Bool {
        switch self {
        case .usb(let vendorID, let productID):
            return port.vendorID == vendorID && port.productID == productID
        case .byID(let pattern):
            return Self.link(of: port, in: Self.byIDDirectory, matches: pattern)
        case .byPath(let pattern):
            return Self.link(of: port, in: Self.byPathDirectory, matches: pattern)
        case .serial(let pattern):
            guard let serial = port.serial else { return false }
            return Self.glob(pattern, serial)
        case .path(let path):
            return port.devnode == path || port.links.contains(path)
        }
    }

    /// The entry as written in the config (normalised: lower-case USB IDs).
    public var description: String {
        switch self {
        case .usb(let vendorID, let productID): "\(vendorID):\(productID)"
        case .byID(let name): "by-id:\(name)"
        case .byPath(let name): "by-path:\(name)"
        case .serial(let serial): "serial:\(serial)"
        case .path(let path): path
        }
    }

    private static func link(of port: UdevPort, in directory: String, matches pattern: String) -> Bool {
        port.links.contains { link in
            link.hasPrefix(directory) && glob(pattern, String(link.dropFirst(directory.count)))
        }
    }

    /// `fnmatch(3)` without flags: `*`, `?` and `[…]`; a pattern without them compares exactly.
    private static func glob(_ pattern: String, _ value: String) -> Bool {
        fnmatch(pattern, value, 0) == 0
    }
}
