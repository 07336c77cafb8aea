import CUDev
import PosixSupport

#if canImport(Glibc)
import Glibc
#endif

/// One libudev context (`struct udev`), used by one thread at a time.
final class UdevContext {
    let pointer: OpaquePointer

    init() throws(UdevDiscoveryError) {
        guard let pointer = udev_new() else {
            throw .udevUnavailable(detail: "udev_new() failed: \(Errno.current.description)")
        }
        self.pointer = pointer
    }

    deinit {
        udev_unref(pointer)
    }

    /// Every `tty` device with a node.
    func enumerateTTYs() throws(UdevDiscoveryError) -> [UdevPort] {
        guard let enumerate = udev_enumerate_new(pointer) else {
            throw .enumerationFailed(errno: errno)
        }
        defer { udev_enumerate_unref(enumerate) }
        var result = udev_enumerate_add_match_subsystem(enumerate, "tty")
        if result >= 0 { result = udev_enumerate_scan_devices(enumerate) }
        guard result >= 0 else { throw .enumerationFailed(errno: -result) }
        var ports: [UdevPort] = []
        for entry in UdevPort.list(udev_enumerate_get_list_entry(enumerate)) {
            guard let device = udev_device_new_from_syspath(pointer, entry.name) else { continue }
            defer { udev_device_unref(device) }
            if let port = UdevPort(device: device) { ports.append(port) }
        }
        return ports
    }
}
