import ATKit
import Foundation
import NBGWCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ModemFailure {
    /// A probe's failure. `everAnswered`: the port has answered `AT` before in this supervisor's
    /// life, so silence now is a module in trouble, not a port that is no modem.
    static func probe(_ error: ModemProbeError, everAnswered: Bool) -> ModemFailure {
        switch error {
        case .notAModem(let port, _, _):
            if everAnswered {
                return ModemFailure(
                    .unresponsive,
                    "\(port) answered AT before but is silent now (\(error)); the module may be resetting"
                )
            }
            return ModemFailure(.notAModem, error.description, disposition: .notModem)
        case .portUnavailable(let port, let reason):
            switch reason {
            case .portBusy:
                return ModemFailure(.portBusy, error.description)
            case .openFailed(_, let code) where code == ENOENT || code == ENXIO || code == ENODEV:
                return ModemFailure(.deadPort, "\(port) no longer exists (\(reason))", disposition: .gone)
            default:
                return ModemFailure(.portUnavailable, error.description)
            }
        case .portClosed(let port, _, _):
            return closed(port: port, detail: error.description)
        case .modemError:
            return ModemFailure(.modemError, error.description)
        }
    }

    /// The port closed under a session: gone when its node went with it, else a failure to retry
    /// (a USB reset that kept the node, a driver hiccup).
    static func closed(port: String, detail: String) -> ModemFailure {
        if FileManager.default.fileExists(atPath: port) {
            return ModemFailure(.deadPort, detail + "; the node still exists, retrying")
        }
        return ModemFailure(.deadPort, detail, disposition: .gone)
    }

    /// A failure of the supervisor's own session, during `phase` (`bring-up`, `registration`, …).
    static func session(_ error: any Error, port: String, imei: String?, phase: ModemState) -> ModemFailure {
        let module = imei.map { "\(port) (IMEI \($0))" } ?? port
        if let failure = error as? ModemFailure { return failure }
        if let error = error as? ModemProbeError { return probe(error, everAnswered: true) }
        if let error = error as? ATError {
            switch error {
            case .transportClosed:
                return closed(port: port, detail: "\(module): \(error)")
            case .sessionClosed:
                return ModemFailure(.modemError, "\(module): \(error)")
            case .timeout, .unresponsive:
                return ModemFailure(
                    .unresponsive,
                    "\(module): \(error) while \(phase.rawValue); check the module's supply and wiring"
                )
            case .commandFailed, .invalidCommand:
                if phase == .configuring {
                    return ModemFailure(
                        .bringUpFailed,
                        "\(module): \(error); check the bring-up settings against what the module supports"
                    )
                }
                return ModemFailure(.modemError, "\(module): \(error)")
            }
        }
        if let error = error as? ModemBringUpError {
            switch error {
            case .unsupported, .invalidArgument:
                return ModemFailure(.bringUpFailed, "\(module): \(error)")
            case .registrationDenied(let status, _):
                let cause = status.rejectCause.map { "reject cause \($0)" } ?? "no reject cause reported"
                return ModemFailure(
                    .registrationDenied,
                    "\(module): the network denied registration (\(cause)); check the SIM's subscription and the APN"
                )
            case .registrationTimedOut:
                return ModemFailure(.registrationTimeout, "\(module): \(error)")
            case .rebooted:
                return ModemFailure(.rebooted, "\(module): \(error)")
            case .sessionEnded:
                return closed(port: port, detail: "\(module): \(error)")
            case .rebootTimedOut:
                return ModemFailure(.unresponsive, "\(module): \(error)")
            }
        }
        if let error = error as? NBGWError {
            let code: ModemFailureCode =
                phase == .registering
                ? .cloudRegistration : error.code == .storeUnavailable ? .storeUnavailable : .modemError
            return ModemFailure(code, "\(module): \(error.code.rawValue): \(error.message)")
        }
        if let error = error as? ATResponseParseError {
            return ModemFailure(.modemError, "\(module): \(error)")
        }
        return ModemFailure(.modemError, "\(module): \(error)")
    }
}
