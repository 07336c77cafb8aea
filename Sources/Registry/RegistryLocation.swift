/// Where the store lives: `--db PATH`, else `$NBGW_DB`, else `$XDG_STATE_HOME/nbgw/nbgw.sqlite`,
/// else `$HOME/.local/state/nbgw/nbgw.sqlite` (docs/cli.md "The store"). The systemd unit sets
/// `NBGW_DB=/var/lib/nbgw/nbgw.sqlite`.
public enum RegistryLocation {
    /// Resolves the path. The caller passes its environment: libraries never read process state.
    public static func resolve(explicit: String?, environment: [String: String]) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let path = environment["NBGW_DB"], !path.isEmpty { return path }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/nbgw/nbgw.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return home + "/.local/state/nbgw/nbgw.sqlite"
    }
}
