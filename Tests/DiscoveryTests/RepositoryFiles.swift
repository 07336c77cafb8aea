import Foundation

/// Files of this repository, found from this source file's location (Tests/DiscoveryTests/…).
enum RepositoryFiles {
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
    }

    static let rulesPath = "udev-rules/90-nbgw.rules"
    /// The commented template of local rules (opt a bridge in, ignore a Zigbee stick), installed as 89-nbgw-local.rules.
    static let localTemplatePath = "udev-rules/89-nbgw-local.rules.example"
}
