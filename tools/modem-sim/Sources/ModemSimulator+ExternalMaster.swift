import PosixSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ModemSimulator {
    /// The master side of a pseudo-terminal that someone else opened, e.g. the one umockdev's testbed
    /// creates for a fake `/dev/ttyUSB2` (`umockdev_testbed_get_dev_fd`). The simulator duplicates
    /// the descriptor, so the owner keeps (and eventually closes) its own.
    public struct AdoptedMaster: Sendable, Hashable {
        /// The master descriptor.
        public var descriptor: Int32
        /// The pty's slave (`/dev/pts/N`), which the simulator keeps open so that the master never
        /// reads EIO between two host sessions. umockdev links the fake node to it.
        public var slavePath: String
        /// The name hosts open, reported as ``ModemSimulator/Port/path`` (e.g. `/dev/ttyUSB2`).
        public var path: String

        public init(descriptor: Int32, slavePath: String, path: String) {
            self.descriptor = descriptor
            self.slavePath = slavePath
            self.path = path
        }
    }

    /// Plays each configuration on an existing pty master instead of a fresh `openpty` pair.
    ///
    /// ```swift
    /// let fd = umockdev_testbed_get_dev_fd(testbed, "/dev/ttyUSB2")
    /// let pts = readlink(root + "/dev/ttyUSB2")  // umockdev links the fake node to the pty's slave
    /// let simulator = ModemSimulator(adopting: [(try SimulatedPortConfiguration(spec: "bg95"),
    ///                                           .init(descriptor: fd, slavePath: pts, path: "/dev/ttyUSB2"))])
    /// try simulator.start()
    /// ```
    public convenience init(
        adopting ports: [(configuration: SimulatedPortConfiguration, master: AdoptedMaster)],
        timeScale: Double = 1,
        seed: UInt64 = 1
    ) {
        var masters: [Int: AdoptedMaster] = [:]
        for (index, port) in ports.enumerated() { masters[index] = port.master }
        self.init(ports: ports.map(\.configuration), adoptedMasters: masters, timeScale: timeScale, seed: seed)
    }
}

extension PseudoTerminalPort {
    /// Adopts `master`: duplicates it (non-blocking, close-on-exec) and opens its slave
    /// for the port's whole life, in raw mode, as ``init(nominalBaud:)`` does for its own pairs.
    init(adopting master: ModemSimulator.AdoptedMaster, nominalBaud: Int) throws(SimulatorConfigurationError) {
        let copy = dup(master.descriptor)
        guard copy >= 0 else {
            throw SimulatorConfigurationError(
                "cannot use the pty master \(master.descriptor) of \(master.path): dup failed: \(Errno.current)"
            )
        }
        let slavePath = master.slavePath
        let slave = open(slavePath, O_RDWR | O_NOCTTY)
        guard slave >= 0 else {
            let failure = Errno.current
            Posix.close(copy)
            throw SimulatorConfigurationError("cannot open \(slavePath), the slave of \(master.path): \(failure)")
        }
        Self.prepare(master: copy, slave: slave, nominalBaud: nominalBaud)
        self.master = copy
        self.slave = slave
        self.path = master.path
    }
}
