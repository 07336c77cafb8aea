import FleetCloud
import Foundation
import TOMLKit

/// `/etc/nbgw/nbgw-cloud.toml` (or `--config FILE`, `$NBGW_CLOUD_CONFIG`): every setting of a node
/// as a key named like its flag (`database`, `key_file`, `listen`, `tls_certificate`, …). A flag
/// given on the command line wins over the environment, which wins over the file, which wins over
/// the default. The file holds no secret: the database password is in `database_password_file`,
/// the sealing key in `key_file`, the TLS key in `tls_key` (each a file of mode 0600).
struct CloudConfigFile {
    /// Where the file is looked for when neither `--config` nor `$NBGW_CLOUD_CONFIG` says.
    static let defaultPath = "/etc/nbgw/nbgw-cloud.toml"

    static let stringKeys: Set<String> = [
        "database", "database_password_file", "key_file", "listen", "metrics_listen", "label_base",
        "tls_certificate", "tls_key",
    ]
    static let integerKeys: Set<String> = ["database_connections", "max_connections", "idle_timeout", "event_wait_limit"]
    static let numberKeys: Set<String> = ["tenant_rate"]

    var path: String?
    var strings: [String: String] = [:]
    var numbers: [String: Double] = [:]

    func string(_ key: String) -> String? { strings[key] }
    func integer(_ key: String) -> Int? { numbers[key].map { Int($0) } }
    func number(_ key: String) -> Double? { numbers[key] }

    /// The file `explicit` names (it must exist), else `$NBGW_CLOUD_CONFIG` (it must exist), else
    /// ``defaultPath`` when it exists; an empty configuration when none is named and the default
    /// is absent.
    static func load(explicit: String?, environment: [String: String]) throws -> CloudConfigFile {
        let named = explicit ?? environment["NBGW_CLOUD_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let path = named ?? defaultPath
        guard FileManager.default.fileExists(atPath: path) else {
            if let named {
                throw FleetError("the config file \(named) does not exist; fix --config / NBGW_CLOUD_CONFIG")
            }
            return CloudConfigFile()
        }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else {
            throw FleetError("cannot read the config file \(path): give the user running nbgw-cloud read access")
        }
        return try parse(text, path: path)
    }

    /// Parses the file's text: unknown keys and wrong types are refused, naming the key and file.
    static func parse(_ text: String, path: String) throws -> CloudConfigFile {
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw FleetError(
                "\(path): line \(error.source.begin.line): TOML syntax error: \(error.description)"
            )
        }
        var file = CloudConfigFile(path: path)
        let known = stringKeys.union(integerKeys).union(numberKeys)
        for key in root.keys.sorted() {
            guard known.contains(key) else {
                throw FleetError(
                    "\(path): unknown key \"\(key)\"; a node takes \(known.sorted().joined(separator: ", ")) "
                        + "(docs/fleet.md, \"Configuration\")"
                )
            }
            let value = root[key]!
            if stringKeys.contains(key) {
                guard let text = value.string else {
                    throw FleetError("\(path): \(key) must be a string, like \(key) = \"…\"")
                }
                file.strings[key] = text
            } else if integerKeys.contains(key) {
                guard let number = value.int else { throw FleetError("\(path): \(key) must be a whole number") }
                file.numbers[key] = Double(number)
            } else {
                guard let number = value.double ?? value.int.map(Double.init) else {
                    throw FleetError("\(path): \(key) must be a number")
                }
                file.numbers[key] = number
            }
        }
        return file
    }
}
