import DeviceIdentity
import Foundation
import NBGWCore

/// Turns a scanned QR string into a ``QRPayload``, without touching the network or the store.
///
/// Accepted shapes (docs/cli.md "QR payloads"):
/// 1. the parse-result JSON `{"actionName":"device_net_conn_bind_nb","actionData":{"id":"…"}}`
///    (also wrapped in a cloud envelope `{"result":{…}}`);
/// 2. `http(s)` URLs carrying `actionName`/`action` and `id`/`deviceId`/`devId` (or `actionData`
///    JSON) as query items; other `http(s)` URLs are label references the issuing cloud resolves;
/// 3. Matter `MT:` QR codes and 11/21-digit manual pairing codes.
///
/// The payload is untrusted: it is size-capped, control characters are rejected, and it is only
/// ever echoed through ``Swift/String/escapedForDisplay(limit:)``.
public enum QRPayloadParser {
    public static func parse(_ raw: String) throws(NBGWError) -> QRPayload {
        if let payload = fastParse(raw) { return payload }
        return try fullParse(raw)
    }

    /// The general parser; ``fastParse(_:)`` answers the common shapes identically without Foundation.
    static func fullParse(_ raw: String) throws(NBGWError) -> QRPayload {
        let text = try sanitize(raw)
        if text.hasPrefix("{") {
            return try parseJSON(text)
        }
        let lower = text.prefix(8).lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            return try parseURL(text)
        }
        // Before Matter: a manual pairing code has 11 or 21 digits, an IMEI 15.
        if let imei = try parseIMEI(text) { return .imei(imei) }
        if MatterPayloadParser.looksLikeMatter(text) {
            do {
                if text.hasPrefix("MT:") {
                    return .matter(try MatterPayloadParser.parseQRCode(text))
                }
                return .matter(try MatterPayloadParser.parseManualCode(text))
            } catch {
                throw NBGWError(.invalidQR, "Matter onboarding payload rejected: \(error) Rescan the code.")
            }
        }
        throw NBGWError(
            .qrProtocolNotRecognized,
            "QR payload \(text.escapedForDisplay()) is not an NB-IoT bind action, a label URL or a Matter code; "
                + "scan the module's pairing label (see `nbgw devices show` for its QR payload)"
        )
    }

    /// Trims scanner whitespace, caps the size and rejects control and bidi-override characters
    /// (but JSON's own whitespace, tab, CR and LF, in a JSON payload).
    static func sanitize(_ raw: String) throws(NBGWError) -> String {
        guard raw.utf8.count <= BindingRules.maximumPayloadBytes else {
            throw NBGWError(
                .invalidQR,
                "QR payload is \(raw.utf8.count) bytes, over the \(BindingRules.maximumPayloadBytes)-byte limit; "
                    + "this is not a pairing label"
            )
        }
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            throw NBGWError(.qrProtocolNotRecognized, "QR payload is empty; scan the label again")
        }
        // JSON may hold tabs and line breaks between its tokens (pretty-printed, or a CSV cell written
        // by a script); inside its strings JSON itself refuses them.
        let json = text.hasPrefix("{")
        for (offset, scalar) in text.unicodeScalars.enumerated()
        where isForbidden(scalar) && !(json && isJSONWhitespace(scalar)) {
            throw NBGWError(
                .invalidQR,
                "QR payload contains control character U+\(String(format: "%04X", scalar.value)) at position "
                    + "\(offset + 1); scanners should send the label's text only"
            )
        }
        return text
    }

    static func isJSONWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        // Bidirectional overrides and isolates: they make a payload display differently from what it is.
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F: true
        default: false
        }
    }

    static func parseJSON(_ text: String) throws(NBGWError) -> QRPayload {
        try refuseDuplicateKeys(text)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [])
        } catch {
            throw NBGWError(.invalidQR, "QR payload looks like JSON but does not parse; rescan the label")
        }
        guard var dictionary = object as? [String: Any] else {
            throw NBGWError(.qrProtocolNotRecognized, "QR JSON is not an object with actionName and actionData")
        }
        if dictionary["actionName"] == nil, let result = dictionary["result"] as? [String: Any] {
            dictionary = result
        }
        guard let actionName = dictionary["actionName"] as? String else {
            throw NBGWError(
                .qrProtocolNotRecognized,
                "QR JSON has no string \"actionName\"; expected {\"actionName\":\"device_net_conn_bind_nb\",…}"
            )
        }
        try requireNBAction(actionName)
        guard let actionData = dictionary["actionData"] as? [String: Any], let id = actionData["id"] as? String else {
            throw NBGWError(.invalidQR, "QR JSON has no string \"actionData.id\"; the label is incomplete")
        }
        return .nbBind(NBBindPayload(deviceID: try deviceID(id), origin: .json))
    }

    static func parseURL(_ text: String) throws(NBGWError) -> QRPayload {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else {
            throw NBGWError(.invalidQR, "QR URL \(text.escapedForDisplay()) is malformed; rescan the label")
        }
        let items = components.queryItems ?? []
        func value(_ names: [String]) -> String? {
            for name in names {
                if let item = items.first(where: { $0.name == name }), let value = item.value, !value.isEmpty {
                    return value
                }
            }
            return nil
        }
        let action = value(["actionName", "action"])
        var id = value(["id", "deviceId", "devId"])
        if id == nil, let data = value(["actionData"]) {
            try refuseDuplicateKeys(data)
            if let object = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any] {
                id = object["id"] as? String
            }
        }
        if let action {
            try requireNBAction(action)
            guard let id else {
                throw NBGWError(.invalidQR, "QR URL names the NB bind action but carries no device id (id=…)")
            }
            return .nbBind(NBBindPayload(deviceID: try deviceID(id), origin: .url))
        }
        if id != nil {
            throw NBGWError(
                .qrProtocolNotRecognized,
                "QR URL carries an id but no actionName; nbgw cannot tell what kind of device it names"
            )
        }
        // A label URL: https://HOST/…/CODE with a code the issuing cloud knows.
        let segments = components.path.split(separator: "/", omittingEmptySubsequences: true)
        guard let last = segments.last, isLabelCode(last) else {
            throw NBGWError(
                .qrProtocolNotRecognized,
                "QR URL \(text.escapedForDisplay()) carries no bind action and no label code"
            )
        }
        var baseComponents = URLComponents()
        baseComponents.scheme = scheme
        baseComponents.host = host.lowercased()
        baseComponents.port = components.port
        baseComponents.path = "/" + segments.dropLast().map(String.init).joined(separator: "/")
        var base = baseComponents.string ?? ""
        if !base.hasSuffix("/") { base += "/" }
        return .label(LabelReference(url: text, base: base, code: String(last)))
    }

    /// A module's IMEI as printed on it: 15 digits, optionally after `IMEI:` (any case, spaces
    /// after the colon allowed), with a valid Luhn check digit. Nil when `text` is not of that form;
    /// a 15-digit or `IMEI:` text whose digits fail is refused with the reason.
    static func parseIMEI(_ text: String) throws(NBGWError) -> IMEI? {
        var digits = Substring(text)
        let prefixed = text.utf8.count > 5 && text.prefix(5).lowercased() == "imei:"
        if prefixed { digits = digits.dropFirst(5).drop { $0 == " " } }
        let allDigits = digits.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        guard prefixed || (digits.utf8.count == 15 && allDigits) else { return nil }
        do {
            return try IMEI(String(digits))
        } catch {
            throw NBGWError(
                .invalidQR,
                "\(text.escapedForDisplay()) is not a module's IMEI: \(error); read the 15 digits on the module "
                    + "again, or scan its pairing label"
            )
        }
    }

    /// A QR's JSON that holds a key twice is malformed: which of the two a reader keeps is up to the
    /// reader (``JSONDuplicateKeys``), so the label could name one device to nbgw and another to a
    /// phone app or the cloud.
    static func refuseDuplicateKeys(_ json: String) throws(NBGWError) {
        guard let key = JSONDuplicateKeys.first(in: json) else { return }
        throw NBGWError(
            .invalidQR,
            "QR JSON holds the key \(key.escapedForDisplay()) twice, so readers may disagree on the device it "
                + "names; rescan the label, and replace it if this persists"
        )
    }

    static func isLabelCode(_ code: Substring) -> Bool {
        (4...64).contains(code.utf8.count)
            && code.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }

    static func requireNBAction(_ actionName: String) throws(NBGWError) {
        guard actionName == BindingRules.nbBindActionName else {
            throw NBGWError(
                .notNBDevice,
                "QR asks for action \(actionName.escapedForDisplay()), not \(BindingRules.nbBindActionName); "
                    + "this is not an NB-IoT device, pair it with the tool for its kind"
            )
        }
    }

    static func deviceID(_ text: String) throws(NBGWError) -> DeviceID {
        do {
            return try DeviceID(text)
        } catch {
            throw NBGWError(.invalidQR, "QR device id \(text.escapedForDisplay()) is invalid: \(error)")
        }
    }
}
