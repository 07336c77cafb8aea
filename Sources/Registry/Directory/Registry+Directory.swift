extension Registry {
    /// Who and what the gateway knows: accounts (owners and guests), their homes with their
    /// product allow-lists, the homes' pairing tokens, the registered devices and the modules'
    /// credentials. Reached as `registry.directory`; a bind reads these tables in its own
    /// transaction (``Bindings``), and the row-level helpers (`fetchDevice`, `fetchHomes`,
    /// `insertToken`) stay on ``Registry`` for it.
    public struct Directory: Sendable {
        let registry: Registry
    }

    /// Accounts, homes, pairing tokens, devices and module credentials (``Directory``).
    public var directory: Directory { Directory(registry: self) }
}
