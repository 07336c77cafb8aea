import Foundation
import Gateway

/// One modem state change as the hooks get it: the gateway's facts, the state before, when the
/// daemon saw it, and the module's model and firmware from the modem table.
public struct HookEvent: Sendable, Equatable {
    public var change: ModemStateChange
    /// The port's state before this change, as the hook service saw it (nil: the first change of
    /// the port since the daemon started).
    public var previousState: ModemState?
    public var time: Date
    public var model: String?
    public var firmware: String?

    public init(
        change: ModemStateChange,
        previousState: ModemState?,
        time: Date,
        model: String? = nil,
        firmware: String? = nil
    ) {
        self.change = change
        self.previousState = previousState
        self.time = time
        self.model = model
        self.firmware = firmware
    }

    /// The search path every hook gets (the daemon's own is not passed on).
    public static let path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    /// The hook's whole environment: every variable is set, empty when unknown, so that a
    /// `set -u` script can use them all.
    ///
    /// ICCID and IMSI are left out on purpose: like in the log, they are stored, never handed
    /// around (an environment ends up in crash reports, `ps e` and the hook's own logs). A hook
    /// that needs them asks the store: `nbgw modem show "$NBGW_IMEI" --json` (`NBGW_DB` is set).
    ///
    /// - Parameter store: the daemon's store, as `NBGW_DB`.
    public func environment(store: String) -> [String: String] {
        [
            "PATH": Self.path,
            "NBGW_PORT": Self.clean(change.port),
            "NBGW_IMEI": change.imei ?? "",
            "NBGW_STATE": change.state.rawValue,
            "NBGW_PREVIOUS_STATE": previousState?.rawValue ?? "",
            "NBGW_DEVICE_ID": Self.clean(change.deviceID ?? ""),
            "NBGW_ERROR_CODE": change.failure?.code.rawValue ?? "",
            "NBGW_ERROR": Self.clean(change.failure?.message ?? ""),
            "NBGW_REASON_CODE": change.reason?.code ?? "",
            "NBGW_REASON": Self.clean(change.reason?.message ?? ""),
            "NBGW_MODEL": Self.clean(model ?? ""),
            "NBGW_FIRMWARE": Self.clean(firmware ?? ""),
            "NBGW_EVENT_TIME": Self.timestamp(time),
            "NBGW_DB": Self.clean(store),
        ]
    }

    /// Text read from a module (model, firmware, error messages quoting its answers) without NUL,
    /// which cannot be in an environment variable, and at most 1024 bytes.
    static func clean(_ text: String) -> String {
        let kept = text.unicodeScalars.filter { $0 != "\0" }
        var result = String(String.UnicodeScalarView(kept))
        if result.utf8.count > 1024 {
            result = String(decoding: JournalEntry.truncated(Array(result.utf8), to: 1024), as: UTF8.self)
        }
        return result
    }

    /// RFC 3339 in UTC with milliseconds: `2026-05-01T12:00:00.123Z`.
    static func timestamp(_ date: Date) -> String {
        var style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        style.timeZone = TimeZone(identifier: "UTC")!
        return date.formatted(style)
    }
}
