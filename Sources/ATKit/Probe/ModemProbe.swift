/// Finds out whether a port is an AT modem and what is behind it.
///
/// ```
///  for each speed in options.baudRates (115200, 9600, 921600, 230400, 57600):
///      open the port ──────────────── fails ──► ModemProbeError.portUnavailable   (dead port)
///      wake: "AT" up to 3×, 250 ms each
///          OK / ERROR / +CME ERROR ──► answered at this speed ─┐
///          nothing ──► close, next speed                       │
///  no speed answered ─────────────────► ModemProbeError.notAModem │
///                                                              ▼
///  session (every family's URCs, guard time, query timeout)
///      ATE0, AT+CMEE=1                       echo off, numeric errors
///      AT+CGMI, AT+CGMM (else ATI) ── both fail ──► ModemProbeError.modemError
///      dialect = ModemDialect.identify(manufacturer, model)
///      AT+CGMR                               firmware
///      IMEI (dialect form, Luhn-checked) ──► options.onIdentified ── .stop ──► partial report
///      AT+CIMI, ICCID (dialect command)
///      AT+CPIN?, AT+CFUN?
///      AT+CEREG? → raise to 5 (4, 2) → AT+CEREG? → restore   stat, TAC, CI, AcT, cause, PSM
///      AT+CSQ, AT+CESQ                       dBm
///      AT+COPS=3,2, AT+COPS?                 numeric operator
///  ──► ModemProbeReport (unknown fields null)
///
///  at any point: the port closes ──► ModemProbeError.portClosed (dead port)
///                a boot marker arrives mid-command ──► wait for AT, ATE0 again, retry once
/// ```
///
/// Time is bounded everywhere: a silent port costs `baudRates × wakeAttempts × wakeTimeout`
/// (≈ 3.8 s by default), a query that never answers one ``ModemProbeOptions/queryTimeout``.
public struct ModemProbe: Sendable {
    /// Opens `port` at `baudRate`. The default opens a ``SerialPortTransport``.
    public typealias TransportOpener =
        @Sendable (_ port: String, _ baudRate: Int) throws(ATTransportError) -> any ATTransport

    public var options: ModemProbeOptions
    let clock: any Clock<Duration>
    let timer: ATSessionClock
    let openTransport: TransportOpener

    /// A probe of real TTYs.
    public init(options: ModemProbeOptions = ModemProbeOptions(), clock: any Clock<Duration> = ContinuousClock()) {
        let exclusive = options.exclusive
        self.init(options: options, clock: clock) { (port, baudRate) throws(ATTransportError) in
            try SerialPortTransport(
                path: port,
                configuration: SerialPortConfiguration(baudRate: baudRate, exclusive: exclusive)
            )
        }
    }

    /// A probe over any transport (tests, bridges). The transport's ``ATTransport/read()`` must
    /// honour task cancellation: the wake phase cancels reads that outlast ``ModemProbeOptions/wakeTimeout``.
    public init(options: ModemProbeOptions, clock: any Clock<Duration>, openTransport: @escaping TransportOpener) {
        self.options = options
        self.clock = clock
        self.timer = ATSessionClock(clock)
        self.openTransport = openTransport
    }

    /// Probes one port. See the type documentation for the flow.
    public func probe(port: String) async throws(ModemProbeError) -> ModemProbeReport {
        let connection = try await connect(port: port)
        return try await identify(connection)
    }

    /// Probes several ports at once (the ports of one module, or a rack of modules); results in
    /// the order of `ports`.
    public func probe(ports: [String]) async -> [Result<ModemProbeReport, ModemProbeError>] {
        await withTaskGroup(of: (Int, Result<ModemProbeReport, ModemProbeError>).self) { group in
            for (index, port) in ports.enumerated() {
                group.addTask {
                    do throws(ModemProbeError) {
                        return (index, .success(try await probe(port: port)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            var results = [Result<ModemProbeReport, ModemProbeError>?](repeating: nil, count: ports.count)
            for await (index, result) in group {
                results[index] = result
            }
            return results.map { $0! }
        }
    }

    /// Finds the speed at which `port` answers `AT` and returns the open port, echo state unknown.
    /// Used by the probe, and by `nbgw at` when no speed is given.
    public func connect(port: String) async throws(ModemProbeError) -> ModemConnection {
        var sawBytes = false
        for baudRate in options.baudRates {
            let transport: any ATTransport
            do {
                transport = try openTransport(port, baudRate)
            } catch {
                throw .portUnavailable(port: port, reason: error)
            }
            let traced: any ATTransport =
                options.trace.map { TracingTransport(transport, capacity: 0, sink: $0) } ?? transport
            let outcome: WakeOutcome
            do {
                outcome = try await wake(traced)
            } catch {
                await traced.close()
                throw error
            }
            switch outcome {
            case .answered:
                return ModemConnection(port: port, baudRate: baudRate, transport: traced)
            case .silent(let heard):
                sawBytes = sawBytes || heard
                await traced.close()
            }
        }
        throw .notAModem(port: port, baudRates: options.baudRates, sawBytes: sawBytes)
    }
}
