import Foundation
import Gateway
import Registry
import Testing

@Suite struct ModemStateTests {
    @Test("every state the gateway has is a state the modem table accepts, spelled the same")
    func statesMatchTheSchema() {
        #expect(ModemState.allCases.map(\.rawValue) == Registry.modemStates)
    }

    @Test("every state can be stored and read back", arguments: ModemState.allCases)
    func storesEveryState(_ state: ModemState) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nbgw-st-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let registry = try Registry(path: directory.appendingPathComponent("store.sqlite").path)
        try await registry.modems.beginProbe(port: "/dev/ttyUSB2")
        try await registry.modems.update(port: "/dev/ttyUSB2", ModemRecord.Change(state: state.rawValue))
        #expect(try registry.modems.find(imeiOrPort: "/dev/ttyUSB2")?.state == state.rawValue)
    }

    @Test("every failure code says what to do")
    func failureCodesHaveAdvice() {
        for code in ModemFailureCode.allCases {
            #expect(code.advice.count > 20, "\(code)")
        }
    }
}
