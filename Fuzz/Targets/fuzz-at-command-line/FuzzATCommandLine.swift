import FuzzSupport

@testable import ATKit

/// ``ATCommandLine`` and ``ATCommandRedaction`` on any line, and on a `+CPIN` command with a
/// secret set in any text.
///
/// Input: 8 bytes of seed, then the payload, read as UTF-8 (invalid bytes replaced).
///
/// Properties: reading and redacting are total (no trap); a line that reads has its commands in
/// order, each one's source and argument text exactly the text at its ranges, its arguments inside
/// it; a line naming no secret command comes back from redaction unchanged; and the payload cut in
/// two around a generated secret command (`+CPIN`, `+CPIN2` or `^CPIN` in mixed case, spaces around
/// the `=`, one or two 8-digit secrets from the seed, quoted or not, `AT` in front or not) redacts to
/// a line that holds neither secret, unless the text around it holds it too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let (seed, payload) = FuzzInput(data, size).seedAndPayload
    FuzzATCommandLine.run(seed: seed, payload: payload)
    return 0
}

enum FuzzATCommandLine {
    static func run(seed: UInt64, payload: ArraySlice<UInt8>) {
        let line = String(decoding: payload, as: UTF8.self)
        checkReading(line)
        let redacted = ATCommandRedaction.redact(line)
        if !namesASecretCommand(line) {
            fuzzCheck(redacted == line, "a line without a secret command changed: \(line.debugDescription)")
        }

        var generator = SplitMix64(seed: seed)
        let cut = Int(generator.next() % UInt64(payload.count + 1))
        let prefix = String(decoding: payload.prefix(cut), as: UTF8.self)
        let suffix = String(decoding: payload.dropFirst(cut), as: UTF8.self)
        let (command, secrets) = secretCommand(&generator)
        let withAT = generator.next() % 2 == 0 ? "AT" : ""
        let generated = withAT + prefix + command + suffix
        let masked = ATCommandRedaction.redact(generated)
        for secret in secrets where contains(masked, secret) {
            fuzzCheck(
                contains(prefix, secret) || contains(suffix, secret),
                "secret \(secret) left in \(masked.debugDescription) from \(generated.debugDescription)"
            )
        }
    }

    /// The line's reading, if any, against its own text.
    static func checkReading(_ line: String) {
        guard let parsed = try? ATCommandLine(line) else { return }
        let scalars = line.unicodeScalars
        var previousEnd = scalars.startIndex
        for command in parsed.commands {
            fuzzCheck(command.range.lowerBound >= previousEnd, "commands overlap in \(line.debugDescription)")
            fuzzCheck(
                String(scalars[command.range]) == command.source
                    && String(scalars[command.argumentRange]) == command.argumentText,
                "ranges disagree with the text of \(command.name) in \(line.debugDescription)"
            )
            fuzzCheck(
                command.argumentRange.lowerBound >= command.range.lowerBound
                    && command.argumentRange.upperBound <= command.range.upperBound,
                "argument range outside \(command.name) in \(line.debugDescription)"
            )
            for argument in command.arguments {
                fuzzCheck(
                    argument.range.lowerBound >= command.argumentRange.lowerBound
                        && argument.range.lowerBound <= command.argumentRange.upperBound,
                    "an argument of \(command.name) outside its argument text in \(line.debugDescription)"
                )
            }
            previousEnd = command.range.upperBound
        }
    }

    /// `+CPIN = "12345678"`, `^cPiN=12345678,"87654321"`…, and the secrets in it.
    static func secretCommand(_ generator: inout SplitMix64) -> (String, [String]) {
        let bits = generator.next()
        let names = ["+CPIN", "+CPIN2", "^CPIN"]
        var name = ""
        for (offset, scalar) in names[Int(bits % 3)].unicodeScalars.enumerated() {
            let lower = bits >> (8 + offset) & 1 == 1 && ("A"..."Z").contains(scalar)
            name.unicodeScalars.append(lower ? Unicode.Scalar(scalar.value + 32)! : scalar)
        }
        let spaces = { (shift: UInt64) in String(repeating: " ", count: Int(bits >> shift % 3)) }
        let quote = bits >> 20 & 1 == 1 ? "\"" : ""
        let secrets = (0..<(bits >> 21 & 1 == 1 ? 2 : 1)).map { _ in
            String(generator.next() % 90_000_000 + 10_000_000)
        }
        let arguments = secrets.map { quote + $0 + quote }.joined(separator: ",")
        return (name + spaces(16) + "=" + spaces(18) + arguments, secrets)
    }

    /// Whether a secret command's name is anywhere in `line`, in any case, spaces ignored.
    static func namesASecretCommand(_ line: String) -> Bool {
        let visible = String(line.unicodeScalars.filter { $0 != " " }).uppercased()
        return ATCommandRedaction.secretNames.contains { contains(visible, $0) }
    }

    /// Whether `text` holds `part`, byte for byte. Why not `String.contains`: it compares
    /// characters, and a combining mark after a letter (`N` + U+0329) makes a character that is not
    /// `N`, while a module, the reader and the redaction all read scalars (the first finding of
    /// this target was this, in the check, not in the redaction).
    static func contains(_ text: String, _ part: String) -> Bool {
        let bytes = Array(text.utf8)
        let pattern = Array(part.utf8)
        guard !pattern.isEmpty, pattern.count <= bytes.count else { return pattern.isEmpty }
        return (0...(bytes.count - pattern.count)).contains { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }
}
