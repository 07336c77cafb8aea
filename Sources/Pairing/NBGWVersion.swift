/// The nbgw release this build is (one place: the CLI's --version, the .deb, nbgw_build_info).
public enum NBGWVersion {
    public static let current = "0.2.0"
}
