import Dispatch
import Foundation
import Registry
import Synchronization
import Testing

/// Several openers of one brand-new store at the same moment (the daemon starting while an operator
/// runs `nbgw modems`): every one must get a migrated store, none "table … already exists".
@Suite("opening a new store concurrently")
struct RegistryOpenRaceTests {
    @Test("eight openers of the same new file all succeed and see one migrated schema")
    func concurrentOpenersOfANewStore() throws {
        for _ in 0..<5 {
            let store = try TestStore()
            let failures = Mutex<[String]>([])
            // Real threads, released together, so the openers' migrations overlap.
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for _ in 0..<8 {
                group.enter()
                Thread {
                    start.wait()
                    do {
                        let registry = try Registry(path: store.path)
                        _ = try registry.modems.all()
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                    group.leave()
                }.start()
            }
            for _ in 0..<8 { start.signal() }
            group.wait()
            #expect(failures.withLock { $0 } == [])
        }
    }
}
