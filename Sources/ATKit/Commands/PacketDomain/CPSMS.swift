/// 3GPP TS 27.007 §7.38 Power saving mode setting `+CPSMS`.
///
/// `AT+CPSMS=1,,,"<Requested_Periodic-TAU>","<Requested_Active-Time>"`. The values are a
/// *request*: the network grants its own, reported by `+CEREG` at level 4/5 (see
/// ``RegistrationStatus/activeTimeSeconds``).
public enum CPSMS {
    /// Enables PSM with timers given in seconds, or disables it.
    public struct Set: ATCommand {
        /// nil disables PSM (`AT+CPSMS=0`).
        public var periodicTAUBits: String?
        public var activeTimeBits: String?
        /// The seconds the bit strings actually encode (rounded up from the request).
        public var periodicTAUSeconds: Int?
        public var activeTimeSeconds: Int?

        /// Requests PSM with a Periodic-TAU (T3412 extended) and an Active-Time (T3324) in seconds.
        ///
        /// - Throws: ``ATCommandArgumentError`` when the Active-Time is not shorter than the
        ///   Periodic-TAU (the module would never sleep).
        public init(periodicTAU: Int, activeTime: Int) throws(ATCommandArgumentError) {
            guard periodicTAU > 0, activeTime >= 0, activeTime < periodicTAU else {
                throw ATCommandArgumentError(
                    command: "+CPSMS",
                    argument: "timers",
                    reason: "Active-Time (\(activeTime) s) must be ≥ 0 and shorter than Periodic-TAU (\(periodicTAU) s)"
                )
            }
            let tau = PSMTimer.periodicTAU.bits(forSeconds: periodicTAU)
            let active = PSMTimer.activeTime.bits(forSeconds: activeTime)
            periodicTAUBits = tau.bits
            periodicTAUSeconds = tau.seconds
            activeTimeBits = active.bits
            activeTimeSeconds = active.seconds
        }

        /// `AT+CPSMS=0`.
        public static let disable = Set()

        private init() {}

        public var command: String {
            guard let periodicTAUBits, let activeTimeBits else { return "AT+CPSMS=0" }
            return "AT+CPSMS=1,,,\"\(periodicTAUBits)\",\"\(activeTimeBits)\""
        }

        public var timeout: Duration? { ATCommandTimeout.configuration }
    }

    /// `AT+CPSMS?` → `+CPSMS: <mode>,[<RAU>],[<GPRS-READY>],[<Periodic-TAU>],[<Active-Time>]`.
    public struct Read: ATCommand {
        public init() {}

        public var command: String { "AT+CPSMS?" }

        public func parse(_ response: ATResponse) throws(ATResponseParseError) -> PowerSavingSettings {
            let parameters = try response.parameters(for: "+CPSMS")
            guard let mode = parameters.int(0) else {
                throw ATResponseParseError(response, "expected +CPSMS: <mode>,...")
            }
            return PowerSavingSettings(
                enabled: mode == 1,
                periodicTAUBits: parameters.string(3),
                activeTimeBits: parameters.string(4)
            )
        }
    }
}
