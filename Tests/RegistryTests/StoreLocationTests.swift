import Foundation
import NBGWCore
import Testing

@testable import Registry

/// Where the CLI finds the store, and what opening a store it may not create does.
@Suite("Registry: the store's location, and opening without creating")
struct StoreLocationTests {
    let home = ["HOME": "/home/alice"]

    @Test("--db wins, then $NBGW_DB, then the daemon config's [store] path, then /var/lib/nbgw, then XDG")
    func precedence() {
        let config = RegistryLocation.DaemonConfig(file: "/etc/nbgw/nbgwd.toml", storePath: "/srv/nbgw.sqlite")
        func locate(
            _ explicit: String?,
            _ env: [String: String],
            _ config: RegistryLocation.DaemonConfig?,
            _ system: Bool
        )
            -> StoreLocation
        {
            RegistryLocation.locate(
                explicit: explicit,
                environment: home.merging(env) { $1 },
                daemonConfig: config,
                configFile: "/etc/nbgw/nbgwd.toml",
                systemStoreExists: system
            )
        }
        #expect(locate("/tmp/a.sqlite", ["NBGW_DB": "/tmp/b"], config, true).source == .flag)
        #expect(locate(nil, ["NBGW_DB": "/tmp/b"], config, true).path == "/tmp/b")
        let fromConfig = locate(nil, [:], config, true)
        #expect(
            fromConfig.path == "/srv/nbgw.sqlite" && fromConfig.source == .daemonConfig(file: "/etc/nbgw/nbgwd.toml")
        )
        #expect(!fromConfig.mayCreate, "the daemon's store is the daemon's to create")
        let system = locate(nil, [:], .init(file: "/etc/nbgw/nbgwd.toml", storePath: nil), true)
        #expect(system.path == RegistryLocation.systemPath && system.source == .system && !system.mayCreate)
        #expect(system.passedOver.contains("/etc/nbgw/nbgwd.toml: no [store] path"))
        let mine = locate(nil, [:], nil, false)
        #expect(
            mine.path == "/home/alice/.local/state/nbgw/nbgw.sqlite" && mine.source == .userDefault && mine.mayCreate
        )
        #expect(mine.tried.count == 5, "\(mine.tried)")
        #expect(mine.tried.contains("/etc/nbgw/nbgwd.toml: no such file"))
        #expect(mine.tried.contains("\(RegistryLocation.systemPath): no such file"))
    }

    @Test("the daemon's default follows systemd's StateDirectory, then the user's XDG state")
    func daemonDefault() {
        #expect(
            RegistryLocation.resolve(explicit: nil, environment: ["STATE_DIRECTORY": "/var/lib/nbgw"])
                == "/var/lib/nbgw/nbgw.sqlite"
        )
        #expect(
            RegistryLocation.resolve(explicit: nil, environment: ["STATE_DIRECTORY": "/a:/b", "NBGW_DB": "/x.sqlite"])
                == "/x.sqlite"
        )
        #expect(RegistryLocation.resolve(explicit: nil, environment: ["XDG_STATE_HOME": "/s"]) == "/s/nbgw/nbgw.sqlite")
    }

    @Test("opening a missing store with .existing creates nothing: STORE_NOT_FOUND")
    func existingOnly() throws {
        let store = try TestStore()
        #expect(throws: NBGWError.self) { try Registry(path: store.path, access: .existing) }
        do {
            _ = try Registry(path: store.path, access: .existing)
        } catch {
            #expect(error.code == .storeNotFound && error.message.contains(store.path))
        }
        #expect(!FileManager.default.fileExists(atPath: store.path))
        _ = try Registry(path: store.path)
        #expect(try Registry(path: store.path, access: .existing).modems.all().isEmpty)
    }

    @Test("a shared store is 0660 in its group under a 077 umask, its new directory 2770")
    func sharedModes() throws {
        let store = try TestStore()
        let path = store.directory.appendingPathComponent("state/nbgw.sqlite").path
        let previous = umask(0o077)
        defer { umask(previous) }
        let group = getegid()
        let registry = try Registry(path: path, access: .shared(group: group))
        _ = try registry.modems.markAllAbsent()
        for (file, mode) in [
            (path, 0o660), (path + "-wal", 0o660), (path + "-shm", 0o660),
            ((path as NSString).deletingLastPathComponent, 0o2770),
        ] {
            var info = stat()
            #expect(stat(file, &info) == 0, "\(file)")
            #expect(Int(info.st_mode & 0o7777) == mode, "\(file): \(String(info.st_mode & 0o7777, radix: 8))")
            #expect(info.st_gid == group)
        }
    }

    @Test("shareFiles gives an owner-only store of before the group its modes")
    func shareExisting() throws {
        let store = try TestStore()
        _ = try Registry(path: store.path)
        var info = stat()
        stat(store.path, &info)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(Registry.shareFiles(path: store.path, group: getegid()).isEmpty)
        stat(store.path, &info)
        #expect(info.st_mode & 0o777 == 0o660)
    }
}
