/// The contents of a Matter onboarding payload, decoded from a QR code (Matter Core spec §5.1.3) or from a manual
/// pairing code (§5.1.4).
///
/// Produced by ``MatterPayloadParser``; every value it returns has already passed the validity rules of the spec
/// (version 0, a valid passcode per §5.1.6, a known commissioning flow, a plausible vendor and product ID).
/// The encoder in `MatterSetupPayload+Encoding.swift` turns a value back into either textual form.
public struct MatterSetupPayload: Sendable, Equatable, Codable {
    /// Which textual form the payload was read from.
    public enum Source: String, Sendable, Codable {
        /// `MT:` + base38 (§5.1.3).
        case qrCode = "qr"
        /// 11-digit manual pairing code without vendor and product ID (§5.1.4).
        case manualCode11 = "manual-11"
        /// 21-digit manual pairing code carrying vendor and product ID (§5.1.4).
        case manualCode21 = "manual-21"
    }

    /// How the device enters commissioning mode (§5.1.1.3, the 2-bit "Custom Flow" field of the QR code).
    public enum CommissioningFlow: String, Sendable, Codable, CaseIterable {
        /// 0: the device enters commissioning mode on power-up when uncommissioned.
        case standard
        /// 1: a user action (e.g. a button press) is needed to enter commissioning mode.
        case userIntent = "user-intent"
        /// 2: vendor-specific steps (looked up in the Distributed Compliance Ledger) are needed.
        case custom

        /// The value carried in the QR code's 2-bit field; 3 is reserved.
        public var fieldValue: Int {
            switch self {
            case .standard: 0
            case .userIntent: 1
            case .custom: 2
            }
        }

        /// The flow for a 2-bit field value, or nil for the reserved value 3 (and anything out of range).
        public init?(fieldValue: Int) {
            switch fieldValue {
            case 0: self = .standard
            case 1: self = .userIntent
            case 2: self = .custom
            default: return nil
            }
        }
    }

    /// The textual form this payload was decoded from (or is meant to be encoded as).
    public var source: Source
    /// QR only (3 bits, always 0 for payloads the parser accepts); nil for manual codes.
    public var version: Int?
    /// QR codes and 21-digit manual codes; nil for 11-digit manual codes. 0 means "not specified".
    public var vendorID: Int?
    /// QR codes and 21-digit manual codes; nil for 11-digit manual codes.
    public var productID: Int?
    /// For 11-digit manual codes this is `.standard` and for 21-digit ones `.custom`: a manual code has no flow
    /// field, and this is the reading connectedhomeip's `ManualSetupPayloadParser` gives it.
    public var commissioningFlow: CommissioningFlow
    /// QR only: the raw 8-bit discovery-capabilities mask (§5.1.1.4).
    public var rendezvousInformation: Int?
    /// QR only: the names of the bits set in ``rendezvousInformation``, lowest bit first
    /// (see ``rendezvousMethodNames(forMask:)``).
    public var rendezvousMethods: [String]?
    /// The 12-bit discriminator for QR codes; the 4-bit short discriminator (its top 4 bits) for manual codes.
    public var discriminator: Int
    /// True when ``discriminator`` is the 4-bit short form (manual codes).
    public var discriminatorIsShort: Bool
    /// The setup passcode (§5.1.1.6, validity rules §5.1.6). Treat it as a secret: do not log it.
    public var passcode: Int
    /// QR only: bytes follow the 88-bit fixed part (an optional TLV structure, §5.1.3.1); they are not decoded.
    public var hasTLVExtension: Bool

    /// Creates a payload; ``rendezvousMethods`` is derived from `rendezvousInformation`.
    public init(
        source: Source,
        version: Int? = nil,
        vendorID: Int? = nil,
        productID: Int? = nil,
        commissioningFlow: CommissioningFlow = .standard,
        rendezvousInformation: Int? = nil,
        discriminator: Int,
        discriminatorIsShort: Bool,
        passcode: Int,
        hasTLVExtension: Bool = false
    ) {
        self.source = source
        self.version = version
        self.vendorID = vendorID
        self.productID = productID
        self.commissioningFlow = commissioningFlow
        self.rendezvousInformation = rendezvousInformation
        self.rendezvousMethods = rendezvousInformation.map(Self.rendezvousMethodNames(forMask:))
        self.discriminator = discriminator
        self.discriminatorIsShort = discriminatorIsShort
        self.passcode = passcode
        self.hasTLVExtension = hasTLVExtension
    }

    /// The 4-bit short discriminator (the top 4 bits of the 12-bit one), which is all a manual code carries and
    /// what a commissioner can match against when the user typed the manual code.
    public var shortDiscriminator: Int {
        discriminatorIsShort ? discriminator : discriminator >> 8
    }

    /// Names of the discovery-capability bits (§5.1.1.4), index = bit number. Bits 0–2 are from Matter 1.0;
    /// Wi-Fi PAF, NFC and Thread are the later additions named in connectedhomeip's `RendezvousInformationFlag`.
    public static let rendezvousBitNames: [String] = [
        "soft-ap", "ble", "on-network", "wifi-paf", "nfc", "thread", "reserved-bit-6", "reserved-bit-7",
    ]

    /// The names of the bits set in an 8-bit discovery-capabilities mask, lowest bit first; bits above 7 are ignored.
    public static func rendezvousMethodNames(forMask mask: Int) -> [String] {
        rendezvousBitNames.indices.filter { mask >> $0 & 1 == 1 }.map { rendezvousBitNames[$0] }
    }
}
