import CUDev
import PosixSupport

#if canImport(Glibc)
import Glibc
#endif

/// A udev netlink monitor filtered to the `tty` subsystem, receiving. Keeps its context alive.
final class UdevMonitor {
    let context: UdevContext
    let pointer: OpaquePointer

    init(context: UdevContext) throws(UdevDiscoveryError) {
        guard let pointer = udev_monitor_new_from_netlink(context.pointer, "udev") else {
            throw .monitorUnavailable(detail: "udev_monitor_new_from_netlink: \(Errno.current.description)")
        }
        self.context = context
        self.pointer = pointer
        var result = udev_monitor_filter_add_match_subsystem_devtype(pointer, "tty", nil)
        if result >= 0 { result = udev_monitor_enable_receiving(pointer) }
        guard result >= 0 else {
            udev_monitor_unref(pointer)
            throw .monitorUnavailable(detail: "udev_monitor_enable_receiving: \(Errno.message(-result))")
        }
    }

    deinit {
        udev_monitor_unref(pointer)
    }

    /// The socket to poll.
    var fileDescriptor: Int32 { udev_monitor_get_fd(pointer) }

    /// The next queued device (with its action), or nil when none is queued.
    func receive() -> (action: String, device: OpaquePointer)? {
        guard let device = udev_monitor_receive_device(pointer) else { return nil }
        let action = UdevPort.string(udev_device_get_action(device)) ?? "change"
        return (action, device)
    }
}
