/// A byte pipe to one modem port: the lowest layer of ATKit.
///
/// A transport knows nothing about AT syntax. Serial ports, the ``TracingTransport`` decorator and
/// in-memory test doubles all conform, so the framing, classification and session layers can be
/// exercised without hardware.
///
/// Contract:
/// - ``read()`` suspends until at least one byte is available and returns every byte buffered so
///   far (chunk boundaries carry no meaning). It has a single consumer (the session's reader).
/// - When the port goes away (end of file, `EIO`/`ENXIO`, `POLLHUP` on unplug) or ``close()`` is
///   called, pending and later ``read()`` calls throw ``ATTransportError/closed(port:reason:)``
///   instead of hanging, after any bytes received before the close have been returned.
/// - ``write(_:)`` returns once all bytes were handed to the operating system, or throws
///   ``ATTransportError/closed(port:reason:)`` when the port is gone.
/// - ``close()`` is idempotent and returns once the underlying resources (file descriptor,
///   exclusive lock, the reader's hold on it) have been released.
public protocol ATTransport: Sendable {
    /// The name used in errors and logs, normally the device path (`/dev/ttyUSB2`).
    var portName: String { get }

    /// The next chunk of received bytes; never empty.
    func read() async throws -> [UInt8]

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8]) async throws

    /// Releases the port. Pending reads and writes fail with ``ATTransportError/closed(port:reason:)``.
    func close() async
}
