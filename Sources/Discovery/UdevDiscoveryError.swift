/// Why udev discovery cannot run. Each message says what failed, where, and what to do.
public enum UdevDiscoveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `udev_new()` failed or `/sys` is not readable: no libudev at all.
    case udevUnavailable(detail: String)
    /// The enumeration of the `tty` subsystem failed (errno from libudev).
    case enumerationFailed(errno: Int32)
    /// The netlink monitor could not be created or bound.
    case monitorUnavailable(detail: String)

    public var description: String {
        switch self {
        case .udevUnavailable(let detail):
            "udev is unavailable (\(detail)); nbgwd needs /sys mounted and libudev1 installed, "
                + "or list the ports under [[ports]] in the config and disable discovery"
        case .enumerationFailed(let code):
            "udev could not enumerate the tty subsystem under /sys/class/tty (errno \(code)); "
                + "check that /sys is mounted read-only or read-write in this container"
        case .monitorUnavailable(let detail):
            "the udev netlink monitor could not be opened (\(detail)); hot-plug needs a NETLINK_KOBJECT_UEVENT "
                + "socket (blocked by some sandboxes and seccomp profiles); ports present at start are still found"
        }
    }
}
