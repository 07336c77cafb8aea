/// The version of nbgw: the one place it is written. `nbgw --version` and `nbgwd --version` print it,
/// `tools/build-deb.sh` names the Debian package after it (reading it back from the built `nbgw`), and
/// the daemon's metrics can label their build info with it.
///
/// Bump it for every release; the package's changelog entry is generated from it, so the package
/// version, the programs' and the metrics' never disagree (docs/packaging.md).
public enum NBGWVersion {
    /// The release, as `MAJOR.MINOR.PATCH` (a Debian upstream version: digits and dots, so that
    /// dpkg orders releases the way they were made).
    public static let current = "0.2.0"
}
