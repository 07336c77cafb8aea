#if canImport(Glibc)
import Glibc
#endif

/// Stops the process with `message` on stderr when `condition` is false: libFuzzer records the
/// input as a crash ("deadly signal") and minimises it. Why not `precondition`: its message is
/// dropped in -O builds, and a finding must say which property broke.
@inline(__always)
public func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        fuzzFail(message())
    }
}

/// Stops the process with `message` on stderr (see ``fuzzCheck(_:_:)``).
public func fuzzFail(_ message: String) -> Never {
    var text = "fuzz property broken: " + message + "\n"
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
    abort()
}
