/// A change in the set of serial ports, as ``UdevDiscovery/events()`` reports it.
public enum UdevEvent: Sendable, Hashable {
    /// A port exists: found by the start-up enumeration or plugged in later.
    case added(UdevPort)
    /// A port's node went away (unplug, driver unbound). Only ports reported as added before are
    /// reported as removed.
    case removed(devnode: String, syspath: String)
}
