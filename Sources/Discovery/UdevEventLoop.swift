import CUDev
import Logging
import PosixSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The body of one ``UdevDiscovery/events()`` thread: monitor, enumerate, then poll the monitor and
/// the wake pipe (an ``FDPoller`` over `poll(2)`: two descriptors) until the stream ends. Owns its
/// libudev context and monitor; touches them on its thread only.
struct UdevEventLoop {
    /// The thread's name (Linux keeps 15 bytes); tests look for it to check that no thread is left behind.
    static let threadName = "nbgw-udev-mon"

    /// Event threads started by ``UdevDiscovery/events()`` and not yet finished, in this process.
    static let running = Atomic<Int>(0)

    private static let wakeToken: UInt64 = 0
    private static let monitorToken: UInt64 = 1

    let logger: Logger
    let continuation: AsyncStream<UdevEvent>.Continuation
    let wake: WakePipe

    func run() {
        Self.nameCurrentThread()
        defer {
            wake.close()
            continuation.finish()
        }
        let context: UdevContext
        do {
            context = try UdevContext()
        } catch {
            logger.error("udev discovery stopped: \(error)")
            return
        }
        // The monitor first: a port plugged in during the enumeration is then either enumerated or
        // queued on the monitor (or both, which `known` folds into one event).
        var monitor: UdevMonitor?
        do {
            monitor = try UdevMonitor(context: context)
        } catch {
            logger.error("udev hot-plug disabled: \(error)")
        }
        var known: [String: String] = [:]  // syspath → devnode of every port reported as added
        do {
            for port in try context.enumerateTTYs() {
                known[port.syspath] = port.devnode
                continuation.yield(.added(port))
            }
        } catch {
            logger.error("udev enumeration failed: \(error)")
        }
        logger.debug("udev discovery running", metadata: ["ports": "\(known.count)", "monitor": "\(monitor != nil)"])
        var poller = FDPoller()
        poller.watch(wake.readEnd, for: .readable, token: Self.wakeToken)
        if let monitor { poller.watch(monitor.fileDescriptor, for: .readable, token: Self.monitorToken) }
        while true {
            switch waitForInput(&poller) {
            case .stop:
                return
            case .monitorBroken:
                // An error on the netlink socket does not clear: polling it again would spin.
                logger.error("udev hot-plug stopped: the monitor socket reported an error; restart to resume")
                if let monitor { poller.unwatch(monitor.fileDescriptor) }
                monitor = nil
            case .monitorReadable:
                while let (action, device) = monitor?.receive() {
                    defer { udev_device_unref(device) }
                    handle(action: action, device: device, known: &known)
                }
            }
        }
    }

    private enum Wakeup {
        case stop
        case monitorReadable
        case monitorBroken
    }

    /// Names the OS thread through `/proc/thread-self/comm`: Foundation's `Thread.name` races with the
    /// thread's start on Linux, and `pthread_setname_np` is not exported to Swift.
    static func nameCurrentThread() {
        let fd = open("/proc/thread-self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        let bytes = Array(threadName.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Blocks until the stream ended or the monitor has something to say.
    private func waitForInput(_ poller: inout FDPoller) -> Wakeup {
        while true {
            let count: Int
            do {
                count = try poller.wait(timeoutMilliseconds: -1)
            } catch  where error.code == EINTR {
                continue
            } catch {
                logger.error("udev discovery stopped: poll failed: \(error)")
                return .stop
            }
            var monitorEvents: FDEvents = []
            for index in 0..<count {
                let event = poller.event(at: index)
                if event.token == Self.wakeToken { return .stop }
                monitorEvents = event.events
            }
            return !monitorEvents.isDisjoint(with: [.error, .hangUp, .invalid]) && !monitorEvents.contains(.readable)
                ? .monitorBroken : .monitorReadable
        }
    }

    private func handle(action: String, device: OpaquePointer, known: inout [String: String]) {
        switch action {
        case "add":
            guard let port = UdevPort(device: device) else { return }
            guard known[port.syspath] == nil else {
                logger.debug("udev add for a port already reported", metadata: ["port": "\(port.devnode)"])
                return
            }
            known[port.syspath] = port.devnode
            logger.debug("udev add", metadata: ["port": "\(port.devnode)", "usb": "\(port.usbID ?? "-")"])
            continuation.yield(.added(port))
        case "remove":
            guard let syspath = UdevPort.string(udev_device_get_syspath(device)),
                let devnode = known.removeValue(forKey: syspath)
            else { return }
            logger.debug("udev remove", metadata: ["port": "\(devnode)"])
            continuation.yield(.removed(devnode: devnode, syspath: syspath))
        default:
            // change/move/bind/unbind: the node stays where it is; nothing for the gateway to do.
            logger.trace(
                "udev \(action) ignored",
                metadata: ["syspath": "\(UdevPort.string(udev_device_get_syspath(device)) ?? "?")"]
            )
        }
    }
}
