import Foundation
import GRDB

/// Kii's routes, after the app and token checks. `segments` is the path after `…/apps/{appID}`.
extension KiiEmulatorResponder {
    static let onboardingMediaType = "application/vnd.kii.onboardingwithvendorthingidbyowner+json"
    static let ownershipMediaType = "application/vnd.kii.thingownershiprequest+json"

    func route(_ request: Incoming, segments: [String], caller: Principal, db: Database) throws -> Outcome {
        switch (request.method, segments.count, segments.first) {
        case ("POST", 1, "onboardings") where request.segments.first == "thing-if":
            return try onboard(request, caller: caller, db: db)
        case ("GET", 2, "things"):
            return try readThing(segments[1], caller: caller, db: db)
        case ("GET", 3, "things") where segments[2] == "ownership":
            return try readOwners(segments[1], caller: caller, db: db)
        case ("POST", 3, "things") where segments[2] == "ownership":
            return try addOwner(request, thing: segments[1], caller: caller, db: db)
        case ("DELETE", 4, "things") where segments[2] == "ownership" && segments[3].lowercased().hasPrefix("user:"):
            return try removeOwner(thing: segments[1], userID: String(segments[3].dropFirst(5)), caller: caller, db: db)
        case ("GET", 2, "users"):
            return try readUser(segments[1], db: db)
        default:
            return .error(404, "NOT_FOUND", "no such resource")
        }
    }

    // MARK: Onboarding

    /// `POST /thing-if/apps/{app}/onboardings`, by vendor thing id, by owner.
    func onboard(_ request: Incoming, caller: Principal, db: Database) throws -> Outcome {
        guard request.mediaType == Self.onboardingMediaType else {
            return .error(
                415,
                "UNSUPPORTED_MEDIA_TYPE",
                "onboarding by vendor thing id by owner needs Content-Type application/vnd.kii.onboardingWithVendorThingIDByOwner+json"
            )
        }
        guard let body = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
            let vendorThingID = body["vendorThingID"] as? String, Self.isName(vendorThingID, limit: 200),
            let password = body["thingPassword"] as? String, !password.isEmpty, password.utf8.count <= 200,
            let owner = body["owner"] as? String
        else {
            return .error(400, "INVALID_INPUT_DATA", "vendorThingID, thingPassword and owner are required")
        }
        let thingType = body["thingType"] as? String ?? "default"
        guard Self.isName(thingType, limit: 100) else {
            return .error(400, "INVALID_INPUT_DATA", "thingType must be 1 to 100 of A-Z a-z 0-9 - _ .")
        }
        if let position = body["layoutPosition"] as? String, !["STANDALONE", "GATEWAY", "ENDNODE"].contains(position) {
            return .error(400, "INVALID_INPUT_DATA", "layoutPosition must be STANDALONE, GATEWAY or ENDNODE")
        }
        let ownerParts = owner.split(separator: ":", maxSplits: 1).map(String.init)
        guard ownerParts.count == 2, ownerParts[0].lowercased() == "user" else {
            return .error(400, "INVALID_INPUT_DATA", "owner must be user:<id> (the emulator models user owners only)")
        }
        guard caller.isUser, caller.id == ownerParts[1] else {
            return .error(403, "UNAUTHORIZED", "a user may onboard things for itself only")
        }
        let hash = KiiEmulatorStore.sha256(password)
        let now = Self.now()
        let thingID: String
        let token: String
        if let existing = try store.thing(db, vendorThingID: vendorThingID) {
            // Kii: onboarding a registered thing with its password answers the same thing.
            guard existing.passwordSHA256 == hash else {
                return .error(403, "WRONG_THING_PASSWORD", "the thing password does not match")
            }
            thingID = existing.id
            token = try store.thingToken(db, thingID: thingID) ?? ""
            if try !store.owners(db, thingID: thingID).contains(caller.id) {
                try db.execute(
                    sql: "INSERT INTO owner (thing_id, user_id) VALUES (?, ?)",
                    arguments: [thingID, caller.id]
                )
                try KiiEmulatorStore.recordEffect(db, operation: "owner_add", subject: thingID, at: now)
            }
        } else {
            thingID = KiiEmulatorStore.newThingID()
            token = KiiEmulatorStore.newToken()
            let properties = (body["thingProperties"] as? [String: Any]) ?? [:]
            try db.execute(
                sql: """
                    INSERT INTO thing (id, vendor_thing_id, password_sha256, thing_type, properties, created_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [thingID, vendorThingID, hash, thingType, Self.json(properties), now]
            )
            try db.execute(
                sql: "INSERT INTO token (token, kind, subject) VALUES (?, 'thing', ?)",
                arguments: [token, thingID]
            )
            try db.execute(sql: "INSERT INTO owner (thing_id, user_id) VALUES (?, ?)", arguments: [thingID, caller.id])
            try KiiEmulatorStore.recordEffect(db, operation: "onboard", subject: thingID, at: now)
        }
        let answer: [String: Any] = [
            "thingID": thingID,
            "accessToken": token,
            "mqttEndpoint": [
                "installationID": "ins-" + String(thingID.dropFirst(3)), "host": configuration.host,
                "mqttTopic": thingID.replacingOccurrences(of: ".", with: "-"), "userName": thingID,
                "password": "not-served-by-the-emulator", "portSSL": 8883, "portTCP": 1883,
            ] as [String: Any],
        ]
        var outcome = Outcome(status: 200, json: Self.json(answer))
        outcome.changesState = true
        return outcome
    }

    // MARK: Things and owners

    /// `VENDOR_THING_ID:{id}` or a thing id.
    func thing(_ reference: String, db: Database) throws -> KiiEmulatorStore.Thing? {
        if reference.hasPrefix("VENDOR_THING_ID:") {
            return try store.thing(db, vendorThingID: String(reference.dropFirst("VENDOR_THING_ID:".count)))
        }
        return try store.thing(db, id: reference)
    }

    /// The thing itself, or a user owning it.
    func mayRead(_ thing: KiiEmulatorStore.Thing, caller: Principal, db: Database) throws -> Bool {
        if caller.kind == "thing" { return caller.id == thing.id }
        return try store.owners(db, thingID: thing.id).contains(caller.id)
    }

    func readThing(_ reference: String, caller: Principal, db: Database) throws -> Outcome {
        guard let thing = try thing(reference, db: db) else {
            return .error(404, "THING_NOT_FOUND", "the thing was not found")
        }
        guard try mayRead(thing, caller: caller, db: db) else {
            return .error(403, "UNAUTHORIZED", "only the thing and its owners may read it")
        }
        var fields = (try? JSONSerialization.jsonObject(with: Data(thing.properties.utf8)) as? [String: Any]) ?? [:]
        fields["_thingID"] = thing.id
        fields["_vendorThingID"] = thing.vendorThingID
        fields["_thingType"] = thing.thingType
        fields["_created"] = thing.createdAt
        return Outcome(status: 200, json: Self.json(fields))
    }

    func readOwners(_ reference: String, caller: Principal, db: Database) throws -> Outcome {
        guard let thing = try thing(reference, db: db) else {
            return .error(404, "THING_NOT_FOUND", "the thing was not found")
        }
        guard try mayRead(thing, caller: caller, db: db) else {
            return .error(403, "UNAUTHORIZED", "only the thing and its owners may list its owners")
        }
        return Outcome(status: 200, json: Self.json(["users": try store.owners(db, thingID: thing.id), "groups": []]))
    }

    /// `POST …/things/{thing}/ownership`: the thing may add any user; a user may add itself.
    func addOwner(_ request: Incoming, thing reference: String, caller: Principal, db: Database) throws -> Outcome {
        guard request.mediaType == Self.ownershipMediaType else {
            return .error(
                415,
                "UNSUPPORTED_MEDIA_TYPE",
                "adding an owner needs Content-Type application/vnd.kii.ThingOwnershipRequest+json"
            )
        }
        guard let body = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
            let userID = body["userID"] as? String
        else {
            return .error(400, "INVALID_INPUT_DATA", "userID is required (the emulator models user owners only)")
        }
        guard let thing = try thing(reference, db: db) else {
            return .error(404, "THING_NOT_FOUND", "the thing was not found")
        }
        guard (caller.kind == "thing" && caller.id == thing.id) || (caller.isUser && caller.id == userID) else {
            return .error(403, "UNAUTHORIZED", "only the thing may add others as its owners")
        }
        // Kii's pages we read name the app setting but not its refusal's code; these two are the
        // emulator's own (docs/cloud.md).
        switch body["thingPassword"] as? String {
        case .some(let password) where KiiEmulatorStore.sha256(password) != thing.passwordSHA256:
            return .error(403, "WRONG_THING_PASSWORD", "the thing password does not match")
        case .none where configuration.requireThingPassword:
            return .error(403, "THING_PASSWORD_REQUIRED", "this app requires the thing password to add an owner")
        default:
            break
        }
        guard try store.user(db, id: userID) != nil else {
            return .error(404, "USER_NOT_FOUND", "the user was not found")
        }
        if try store.owners(db, thingID: thing.id).contains(userID) {
            return .error(409, "THING_OWNERSHIP_ALREADY_EXISTS", "the user is already an owner of the thing")
        }
        try db.execute(sql: "INSERT INTO owner (thing_id, user_id) VALUES (?, ?)", arguments: [thing.id, userID])
        try KiiEmulatorStore.recordEffect(db, operation: "owner_add", subject: thing.id, at: Self.now())
        var outcome = Outcome(status: 204)
        outcome.changesState = true
        return outcome
    }

    /// `DELETE …/things/{thing}/ownership/user:{id}`: the thing, or the user itself.
    func removeOwner(thing reference: String, userID: String, caller: Principal, db: Database) throws -> Outcome {
        guard let thing = try thing(reference, db: db) else {
            return .error(404, "THING_NOT_FOUND", "the thing was not found")
        }
        guard (caller.kind == "thing" && caller.id == thing.id) || (caller.isUser && caller.id == userID) else {
            return .error(403, "UNAUTHORIZED", "only the thing may remove others from its owners")
        }
        guard try store.owners(db, thingID: thing.id).contains(userID) else {
            return .error(404, "THING_OWNERSHIP_NOT_FOUND", "the user is not an owner of the thing")
        }
        try db.execute(sql: "DELETE FROM owner WHERE thing_id = ? AND user_id = ?", arguments: [thing.id, userID])
        try KiiEmulatorStore.recordEffect(db, operation: "owner_remove", subject: thing.id, at: Self.now())
        var outcome = Outcome(status: 204)
        outcome.changesState = true
        return outcome
    }

    // MARK: Users

    /// `GET …/users/LOGIN_NAME:{name}` or `GET …/users/{id}`.
    func readUser(_ reference: String, db: Database) throws -> Outcome {
        let user =
            reference.hasPrefix("LOGIN_NAME:")
            ? try store.user(db, loginName: String(reference.dropFirst("LOGIN_NAME:".count)))
            : try store.user(db, id: reference)
        guard let user else {
            return .error(404, "USER_NOT_FOUND", "the user was not found")
        }
        return Outcome(
            status: 200,
            json: Self.json(["userID": user.id, "loginName": user.loginName, "displayName": user.loginName])
        )
    }

    static func isName(_ text: String, limit: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= limit
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            }
    }
}
