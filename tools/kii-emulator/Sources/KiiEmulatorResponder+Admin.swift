import Foundation

/// `/admin/…`: the fault plan, the counters and users, for tests and the demo. Admin requests
/// carry the owner token and are never faulted.
///
/// - `GET /admin/faults`, `PUT /admin/faults` (a ``KiiEmulatorFaults`` JSON)
/// - `GET /admin/stats` (a ``KiiEmulatorStats`` JSON)
/// - `POST /admin/users` `{"loginName": "alice"}`: the user, created if missing
/// - `GET /admin/things/{vendorThingID}`: the thing and its owners' login names
extension KiiEmulatorResponder {
    func admin(_ request: Incoming) -> Outcome {
        guard request.bearer == configuration.ownerToken else {
            return .error(401, "WRONG_TOKEN", "admin requests carry the owner token")
        }
        let path = Array(request.segments.dropFirst())
        do {
            switch (request.method, path.first, path.count) {
            case ("GET", "faults", 1):
                return Outcome(status: 200, json: try Self.encode(faults.current))
            case ("PUT", "faults", 1):
                let plan = try JSONDecoder().decode(KiiEmulatorFaults.self, from: Data(request.body))
                faults.set(plan)
                return Outcome(status: 200, json: try Self.encode(plan))
            case ("GET", "stats", 1):
                return Outcome(status: 200, json: try Self.encode(try store.stats(faultsFired: faults.firedCounts)))
            case ("POST", "users", 1):
                guard let body = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
                    let name = body["loginName"] as? String, Self.isName(name, limit: 64)
                else {
                    return .error(400, "INVALID_INPUT_DATA", "loginName: 1 to 64 of A-Z a-z 0-9 - _ .")
                }
                let id = try store.ensureUser(loginName: name)
                return Outcome(status: 200, json: Self.json(["userID": id, "loginName": name]))
            case ("GET", "things", 2):
                guard let thing = try store.thing(vendorThingID: path[1]) else {
                    return .error(404, "THING_NOT_FOUND", "the thing was not found")
                }
                return Outcome(
                    status: 200,
                    json: Self.json([
                        "thingID": thing.id, "thingType": thing.thingType,
                        "owners": try store.ownerLoginNames(thingID: thing.id),
                    ])
                )
            default:
                return .error(404, "NOT_FOUND", "no such admin resource")
            }
        } catch {
            return .error(400, "INVALID_INPUT_DATA", "\(error)")
        }
    }

    static func encode<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
