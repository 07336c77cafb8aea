import Foundation

/// `/usr/bin/curl` as a real client of the HTTPS server, trusting one certificate only.
public enum Curl {
    /// What curl did: its exit status (0 when a response arrived), the HTTP status (0 without
    /// one) and the body.
    public struct Result: Sendable {
        public var exitStatus: Int32
        public var status: Int
        public var body: String
        public var stderr: String
    }

    public static let path = "/usr/bin/curl"

    /// Sends one request. `trusting` is the PEM file given to `--cacert`; nil for plain HTTP.
    public static func request(
        _ url: String,
        method: String = "GET",
        trusting certificate: String?,
        headers: [String: String] = [:],
        body: String? = nil
    ) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw SelfSignedCertificate.Failure(description: "\(path) is missing: install curl (tools/setup.sh)")
        }
        // Why the marker: the status goes after the body, where no JSON body can end with it.
        var arguments = ["-sS", "--max-time", "10", "-X", method, "-w", "\n@@status=%{http_code}", "-o", "-"]
        if let certificate { arguments += ["--cacert", certificate] }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { arguments += ["-H", "\(name): \(value)"] }
        if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body] }
        arguments.append(url)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var body = output
        var status = 0
        if let marker = output.range(of: "\n@@status=", options: .backwards) {
            status = Int(output[marker.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            body = String(output[..<marker.lowerBound])
        }
        return Result(exitStatus: process.terminationStatus, status: status, body: body, stderr: errors)
    }
}
