import Discovery
import Testing

/// `docs/discovery.md` documents the tables the code uses: every module row and bridge appears there.
@Suite("docs/discovery.md follows the tables")
struct DiscoveryDocsTests {
    @Test("every module of the standard policy is in the documented interface maps, by name and VID:PID")
    func modulesDocumented() throws {
        let text = try RepositoryFiles.text("docs/discovery.md")
        for module in KnownModule.catalogue {
            let base = module.name.components(separatedBy: " (").first ?? module.name
            let named = text.contains(base)
            #expect(named, "\(base) is not in docs/discovery.md")
            for product in module.productIDs {
                let listed = text.contains("`\(module.vendorID):\(product)`")
                #expect(listed, "\(module.vendorID):\(product) is not in docs/discovery.md")
            }
            if let hint = module.dialectHint {
                let hinted = text.contains("`\(hint)`")
                #expect(hinted, "\(hint) is not in docs/discovery.md")
            }
        }
    }

    @Test("every bridge of the standard policy is in the documented bridge table, with its IDs and driver")
    func bridgesDocumented() throws {
        let text = try RepositoryFiles.text("docs/discovery.md")
        for bridge in SerialBridge.catalogue {
            #expect(text.contains("`\(bridge.vendorID)`"), "\(bridge.name)")
            for product in bridge.productIDs ?? [] {
                #expect(text.contains("`\(product)`"), "\(bridge.name) \(product)")
            }
            for driver in bridge.drivers { #expect(text.contains("`\(driver)`"), "\(bridge.name) \(driver)") }
        }
    }
}
