import Control
import Daemon
import Foundation
import NBGWCore
import Registry

#if canImport(Glibc)
import Glibc
#endif

/// What the CLI learns from the daemon's config file (`$NBGW_CONFIG`, else
/// `/etc/nbgw/nbgwd.toml`): where the daemon keeps its store and its control socket. Read with the
/// daemon's own parser, so both sides mean the same by every key.
struct DaemonSettings {
    /// The file looked for.
    var file: String
    /// Its configuration, when the file exists.
    var configuration: DaemonConfiguration?

    /// Reads the daemon's config as the CLI sees it. A missing default file is no error (a
    /// developer's machine); a missing `$NBGW_CONFIG` is; an unreadable one is `PERMISSION_DENIED`
    /// naming the group that may read it; a malformed one says where.
    static func read(environment: [String: String]) throws(NBGWError) -> DaemonSettings {
        let explicit = environment["NBGW_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let file = explicit ?? DaemonConfiguration.defaultPath
        guard FileManager.default.fileExists(atPath: file) else {
            if explicit != nil {
                throw NBGWError(.invalidArgument, "$NBGW_CONFIG names \(file), which does not exist; fix or unset it")
            }
            return DaemonSettings(file: file, configuration: nil)
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            var info = stat()
            let group =
                stat(file, &info) == 0
                ? (getgrgid(info.st_gid).flatMap { $0.pointee.gr_name.map { String(cString: $0) } } ?? "\(info.st_gid)")
                : "nbgw"
            let user = getpwuid(geteuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } } ?? "$USER"
            throw NBGWError(
                .permissionDenied,
                "cannot read the daemon's config \(file) (its [store] path says where the store is): join group "
                    + "\(group) (`sudo adduser \(user) \(group)`, then log in again), or pass --db PATH"
            )
        }
        do {
            let configuration = try DaemonConfiguration.parse(toml: String(decoding: data, as: UTF8.self), file: file)
            return DaemonSettings(file: file, configuration: configuration)
        } catch {
            throw NBGWError(
                .invalidArgument,
                "the daemon's config is not valid: \(error); fix it (`nbgwd --check-config`) or pass --db PATH"
            )
        }
    }

    /// The store the CLI uses (docs/cli.md, "The store").
    func storeLocation(explicit: String?, environment: [String: String]) -> StoreLocation {
        RegistryLocation.locate(
            explicit: explicit,
            environment: environment,
            daemonConfig: configuration.map { RegistryLocation.DaemonConfig(file: file, storePath: $0.store.path) },
            configFile: file,
            systemStoreExists: FileManager.default.fileExists(atPath: RegistryLocation.systemPath)
        )
    }

    /// The daemon's control socket: `$NBGW_CONTROL`, else the config's `[control] socket`, else
    /// `/run/nbgw/control.sock`.
    func controlSocket(environment: [String: String]) -> String {
        if let path = environment["NBGW_CONTROL"], !path.isEmpty { return path }
        return configuration?.control.socket ?? ControlProtocol.defaultSocketPath
    }
}
