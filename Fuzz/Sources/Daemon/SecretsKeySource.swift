// Fuzz/ only (not a symlink): the shipped SecretsKeySource reads the key through Registry, which
// this package does not build. The config renderer only names where the key is looked for, so
// these two names are declared here with the shipped values (Sources/Daemon/Configuration/
// SecretsKeySource.swift; a change there must be made here too, or fuzz-toml's build says so
// only if a name goes).
public enum SecretsKeySource {
    public static let credentialName = "secrets.key"
    public static let packagedPath = "/etc/nbgw/credentials/secrets.key"
}
