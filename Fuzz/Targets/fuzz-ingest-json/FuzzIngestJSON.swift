import Foundation
import FuzzSupport

@testable import Ingest

/// The ingest API's strict request decoding on any body: the hand-written fast path for flat
/// objects against JSONDecoder's path, and the flat-object scanner against JSONSerialization.
///
/// Properties:
/// 1. For every request type, the fast path (flat objects without JSONDecoder) and the general
///    path give the same request or the same error (status, code and message).
/// 2. Whenever the flat scanner accepts a body, JSONSerialization reads the same object: the same
///    keys, each with the same string or null. (It may decline more, never accept differently.)
/// 3. Every refusal is a 400 with INVALID_ARGUMENT or MISSING_FIELD (an empty body: MISSING_FIELD,
///    before either path).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzIngestJSON.run(Data(bytes: data, count: size))
    return 0
}

enum FuzzIngestJSON {
    enum Outcome: Equatable {
        case request([String?])
        case error(IngestError)
        case other(String)

        init(_ body: () throws -> Any) {
            do {
                switch try body() {
                case let bind as IngestAPI.BindRequest: self = .request([bind.qr, bind.account, bind.home, bind.token])
                case let parse as IngestAPI.ParseRequest: self = .request([parse.qr])
                case is IngestAPI.EmptyRequest: self = .request([])
                default: self = .other("unexpected type")
                }
            } catch let error as IngestError {
                self = .error(error)
            } catch {
                self = .other("\(error)")
            }
        }
    }

    static func run(_ data: Data) {
        compare(IngestAPI.BindRequest.self, data)
        compare(IngestAPI.ParseRequest.self, data)
        compare(IngestAPI.EmptyRequest.self, data)
        if let flat = StrictJSON.flatObject(data) {
            guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
                fuzzFail(
                    "the flat scanner accepts what JSONSerialization refuses: \(String(decoding: data, as: UTF8.self).debugDescription)"
                )
            }
            fuzzCheck(
                Set(flat.keys) == Set(object.keys),
                "keys differ: \(flat.keys.sorted()) vs \(object.keys.sorted())"
            )
            for (key, value) in flat {
                switch (value, object[key]) {
                case (nil, is NSNull): break
                case (let text?, let other as String):
                    fuzzCheck(text == other, "\(key): \(text.debugDescription) vs \(other.debugDescription)")
                default:
                    fuzzFail(
                        "\(key): flat \(String(describing: value)) vs JSONSerialization \(String(describing: object[key]))"
                    )
                }
            }
        }
    }

    static func compare<Request: Decodable>(_ type: Request.Type, _ data: Data) {
        let fast = Outcome { try StrictJSON.decode(type, from: data) }
        // An empty body never reaches either path (MISSING_FIELD before both), so it is not a case
        // for the oracle.
        guard !data.isEmpty else {
            fuzzCheck(fast == .error(StrictJSON.emptyBody), "\(type): an empty body gives \(fast)")
            return
        }
        let slow = Outcome { try StrictJSON.decodeWithFoundation(type, from: data) }
        fuzzCheck(
            fast == slow,
            "\(type): fast \(fast) vs JSONDecoder \(slow) for \(String(decoding: data, as: UTF8.self).debugDescription)"
        )
        switch fast {
        case .request: break
        case .error(let error):
            fuzzCheck(
                error.status == 400 && (error.code == "INVALID_ARGUMENT" || error.code == "MISSING_FIELD"),
                "\(type): refusal \(error)"
            )
        case .other(let text):
            fuzzFail("\(type): decoding threw something other than IngestError: \(text)")
        }
    }
}
