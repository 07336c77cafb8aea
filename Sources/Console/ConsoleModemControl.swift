import Control
import Dispatch
import Gateway
import NBGWCore

/// Modem actions through the daemon's control socket (docs/control.md): the same path as
/// `nbgw modem reset|reprobe|release|resume`. The control client blocks, so each request runs on
/// a dispatch thread, never on the server's cooperative threads.
enum ConsoleModemControl {
    static let actions: [(name: String, label: String)] = [
        ("reset", "Reset"), ("reprobe", "Re-probe"), ("release", "Release the port"), ("resume", "Resume"),
    ]

    /// Hands `action` for `modem` (IMEI or port) to its supervisor; returns the modem's state as it
    /// was when the daemon took the request.
    static func perform(action: String, modem: String, socket: String) async throws(NBGWError) -> String {
        let result: Result<String, NBGWError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                do throws(NBGWError) {
                    let client = try ControlClient.connect(to: socket)
                    let answer = try client.request(
                        ControlRequest(id: client.newID(), op: .action, modem: modem, action: action),
                        as: ControlActionResult.self,
                        timeout: .seconds(15)
                    )
                    continuation.resume(returning: .success(answer.modem.state.rawValue))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
