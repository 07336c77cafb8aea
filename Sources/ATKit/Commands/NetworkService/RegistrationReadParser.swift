/// The shared body of `CEREG.Read`, `CGREG.Read` and `CREG.Read`.
enum RegistrationReadParser {
    static func parse(
        _ response: ATResponse,
        domain: RegistrationStatus.Domain
    ) throws(ATResponseParseError) -> RegistrationStatus {
        guard let parameters = response.values(for: domain.rawValue).first else {
            throw ATResponseParseError(response, "expected a \(domain.rawValue): <n>,<stat>... line")
        }
        do {
            return try RegistrationStatus(readParameters: parameters, domain: domain)
        } catch {
            throw ATResponseParseError(response, error.reason)
        }
    }
}
