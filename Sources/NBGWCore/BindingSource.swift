/// Where a bind request came from; recorded on the binding and in the audit log.
public enum BindingSource: String, Sendable, Codable, CaseIterable {
    case cli
    case csv
    case http
    case daemon
}
