import Crypto

/// The SIM PINs the daemon may enter (`[[sim]]` in its config, or the file `[modem] sim_pins` names):
/// each for one SIM by ICCID, or for the SIM in one module by IMEI (a locked SIM may hide its ICCID).
///
/// A PIN is entered at most once per SIM: one the SIM refused is remembered in the store
/// (``pinDigest(subject:pin:)``) and never entered again, not even after a restart. Its
/// descriptions never show a PIN.
public struct SIMPINBook: Sendable, Equatable, CustomStringConvertible {
    /// One entry.
    public struct Entry: Sendable, Equatable, CustomStringConvertible {
        /// The SIM's ICCID (normalised digits), or nil for an entry by IMEI.
        public var iccid: String?
        /// The module's IMEI, or nil for an entry by ICCID.
        public var imei: String?
        /// 4 to 8 digits.
        public var pin: String

        public init(iccid: String? = nil, imei: String? = nil, pin: String) {
            self.iccid = iccid
            self.imei = imei
            self.pin = pin
        }

        public var description: String {
            "PIN for " + (iccid.map { "ICCID \($0)" } ?? imei.map { "IMEI \($0)" } ?? "?")
        }
    }

    public var entries: [Entry]

    public init(_ entries: [Entry] = []) {
        self.entries = entries
    }

    /// The entry for the SIM with `iccid` (when known), else for the module `imei`.
    public func entry(iccid: String?, imei: String) -> Entry? {
        if let iccid, let entry = entries.first(where: { $0.iccid == iccid }) { return entry }
        return entries.first { $0.imei == imei }
    }

    /// How the store names a SIM: its ICCID, else `imei:<IMEI>`.
    public static func subject(iccid: String?, imei: String) -> String {
        iccid ?? "imei:\(imei)"
    }

    /// SHA-256 of `subject:pin`: what the store keeps of a PIN the SIM refused.
    public static func pinDigest(subject: String, pin: String) -> [UInt8] {
        Array(SHA256.hash(data: Array("\(subject):\(pin)".utf8)))
    }

    public var description: String { "\(entries.count) SIM PIN\(entries.count == 1 ? "" : "s")" }
}
