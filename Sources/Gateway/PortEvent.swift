/// What the gateway is told about ports: discovery and the config translate into these.
public enum PortEvent: Sendable, Hashable {
    /// A port appeared (at start-up enumeration or hot-plug); the gateway starts a supervisor.
    case appeared(ModemPort)
    /// The port's node went away (unplug); the supervisor stops, the modem is marked absent.
    case vanished(path: String)
}
