import CUMockdev
import Foundation

/// A umockdev testbed (`UMockdevTestbed`): a temporary sysfs/dev tree that libudev and `open()` see
/// through umockdev's preload. Not thread-safe: ``ServeCommand`` calls it from one queue only.
///
/// Creating it sets `UMOCKDEV_DIR` in this process; releasing it deletes the tree and closes the pty
/// masters it still holds.
final class Testbed {
    private let pointer: UnsafeMutablePointer<UMockdevTestbed>
    private var closed = false

    init() {
        pointer = umockdev_testbed_new()
    }

    deinit {
        close()
    }

    /// Releases the testbed now: deletes the tree and closes its pty masters. Nothing may use it afterwards.
    /// Explicit because the process exits right after, before a lingering reference would let deinit run.
    func close() {
        guard !closed else { return }
        closed = true
        g_object_unref(pointer)
    }

    /// The tree's root (`/tmp/umockdev.XXXXXX`), which children find in `UMOCKDEV_DIR`.
    var rootDirectory: String {
        guard let text = umockdev_testbed_get_root_dir(pointer) else { return "" }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// Adds the devices of a umockdev description (parents first).
    func add(_ description: String) throws {
        var error: UnsafeMutablePointer<GError>?
        let added = umockdev_testbed_add_from_string(pointer, description, &error)
        if added == 0 || error != nil {
            let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown error"
            if let error { g_error_free(error) }
            throw TestbedError("umockdev rejected the device description: \(message)")
        }
    }

    /// The master side of a tty node's pty (owned by the testbed: never close it).
    func masterDescriptor(devnode: String) -> Int32 {
        umockdev_testbed_get_dev_fd(pointer, devnode)
    }

    /// The pty slave a fake node points to (umockdev makes `<root>/dev/ttyUSB2` a symlink to it).
    func slavePath(devnode: String) throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: rootDirectory + devnode)
    }

    /// Sends a uevent (`add`, `remove`, `change`) for a device to every listening udev monitor.
    func uevent(_ syspath: String, action: String) {
        umockdev_testbed_uevent(pointer, syspath, action)
    }

    /// Removes a device and its children from the tree.
    func remove(_ syspath: String) {
        umockdev_testbed_remove_device(pointer, syspath)
    }
}

/// A testbed failure, printed as `{"event":"error","message":...}`.
struct TestbedError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
