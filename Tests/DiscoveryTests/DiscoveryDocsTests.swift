import Discovery
import Testing

/// `docs/discovery.md` documents the bridge table the code uses. (Its module table is generated from
/// `KnownModule.catalogue` by `nbgw-gen-udev`, and `tools/test.sh` fails while it is stale.)
@Suite("docs/discovery.md follows the bridge table")
struct DiscoveryDocsTests {
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
