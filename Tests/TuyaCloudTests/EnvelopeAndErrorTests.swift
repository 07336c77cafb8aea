import Cloud
import NBGWCore
import Provisioning
import Testing
import TuyaCloud

@Suite("Envelope decoding and error mapping")
struct EnvelopeAndErrorTests {
    @Test("A success envelope carries its result and the cloud's time")
    func successEnvelope() throws {
        let envelope = try TuyaEnvelope<CloudAPI.TokenResult>.decode(
            Array(
                """
                {"success":true,"t":1588925778000,"result":{"access_token":"a","expire_time":7200,\
                "refresh_token":"r","uid":"u"}}
                """.utf8
            )
        )
        #expect(envelope.success)
        #expect(envelope.t == 1_588_925_778_000)
        #expect(
            envelope.result == CloudAPI.TokenResult(accessToken: "a", expireTime: 7200, refreshToken: "r", uid: "u")
        )
    }

    @Test("A failure envelope gives code and msg, with the code as a number or a string")
    func failureEnvelope() throws {
        let numeric = try TuyaEnvelope<CloudAPI.TokenResult>.decode(
            Array(#"{"success":false,"code":1010,"msg":"token invalid","t":1}"#.utf8)
        )
        #expect(!numeric.success && numeric.code == 1010 && numeric.msg == "token invalid" && numeric.result == nil)
        let text = try TuyaEnvelope<EmptyResult>.decode(
            Array(#"{"success":false,"code":"1004","msg":"sign invalid"}"#.utf8)
        )
        #expect(text.code == 1004)
    }

    func mapped(_ code: Int, _ message: String = "msg") -> NBGWError {
        TuyaCloudError(
            .api(code: code, message: message),
            operation: "bind device nb1",
            endpoint: "POST https://openapi.tuyaeu.com/v1.0/iot-03/device-registration/nb-bind"
        ).nbgwError
    }

    @Test("1013 says clock skew or wrong data center, and what to do")
    func requestTimeInvalid() {
        let error = mapped(1013, "request time invalid")
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("clock"))
        #expect(error.message.contains("skew"))
        #expect(error.message.contains("wrong data center"))
        #expect(error.message.contains("openapi.tuyaeu.com"))
    }

    @Test("Credential and signature codes name the setting to fix")
    func credentialCodes() {
        #expect(mapped(1004).code == .invalidArgument)
        #expect(mapped(1004).message.contains("NBGW_CLOUD_SECRET"))
        for code in [1001, 1005] {
            #expect(mapped(code).code == .invalidArgument)
            #expect(mapped(code).message.contains("NBGW_CLOUD_CLIENT_ID"))
            #expect(mapped(code).message.contains("data center"))
        }
        #expect(mapped(1010).message.contains("even after"))
    }

    @Test("Pairing-profile codes become the registry's codes")
    func pairingCodes() {
        #expect(mapped(TuyaErrorCode.deviceAlreadyBound).code == .deviceAlreadyBound)
        #expect(mapped(TuyaErrorCode.pairingTokenExpired).code == .tokenExpired)
        #expect(mapped(TuyaErrorCode.pairingTokenInvalid).code == .tokenInvalid)
        #expect(mapped(TuyaErrorCode.deviceNotBound).code == .notBound)
        #expect(mapped(TuyaErrorCode.deviceNotExist).code == .unknownDevice)
        #expect(mapped(TuyaErrorCode.qrNotRecognized).code == .qrProtocolNotRecognized)
        #expect(mapped(TuyaErrorCode.homeAccessDenied).code == .homeAccessDenied)
        #expect(mapped(1109).code == .invalidArgument)
        #expect(mapped(4242).code == .internalError)
    }

    @Test("An unreachable or overloaded cloud is TIMEOUT and says the work stays queued")
    func unavailable() {
        for kind: TuyaCloudError.Kind in [
            .transport("connection refused"), .timedOut("deadline"), .httpStatus(503, retryAfter: nil),
            .httpStatus(429, retryAfter: .seconds(1)), .api(code: 1111, message: "busy"),
        ] {
            let error = TuyaCloudError(kind, operation: "register IMEI 1", endpoint: "POST x", attempts: 5).nbgwError
            #expect(error.code == .timeout)
            #expect(error.message.contains("5 attempts"))
            #expect(error.message.contains("outbox"))
        }
        let notFound = TuyaCloudError(.httpStatus(404, retryAfter: nil), operation: "o", endpoint: "GET x").nbgwError
        #expect(notFound.code == .invalidArgument)
        #expect(notFound.message.contains("OpenAPI endpoint"))
    }

    @Test("Cloud messages are escaped before they reach a terminal")
    func untrustedMessages() {
        let error = mapped(3002, "bound\u{1B}[31m\nelsewhere")
        #expect(!error.message.contains("\u{1B}"))
        #expect(!error.message.contains("\n"))
    }

    @Test("Transient, configuration and final failures are told apart")
    func classification() {
        #expect(TuyaCloudError(.api(code: 1199, message: ""), operation: "o", endpoint: "e").isTransient)
        #expect(!TuyaCloudError(.api(code: 1004, message: ""), operation: "o", endpoint: "e").isTransient)
        #expect(TuyaCloudError(.api(code: 1013, message: ""), operation: "o", endpoint: "e").isConfigurationProblem)
        #expect(!TuyaCloudError(.api(code: 3002, message: ""), operation: "o", endpoint: "e").isConfigurationProblem)
    }
}

@Suite("Cloud configuration from the environment and the config file")
struct CloudConfigurationTests {
    let environment = [
        "NBGW_CLOUD_URL": "https://openapi.tuyaeu.com/",
        "NBGW_CLOUD_CLIENT_ID": "1KAD46OrT9HafiKdsXeg",
        "NBGW_CLOUD_SECRET": "4OHBOnWOqaEC1mWXOpVL3yV50s0qGSRC",
        "NBGW_CLOUD_REQUEST_TIMEOUT": "2.5",
        "NBGW_CLOUD_MAX_ATTEMPTS": "3",
    ]

    @Test("The environment fills every field; a trailing slash is dropped")
    func fromEnvironment() throws {
        let configuration = try CloudConfiguration.fromEnvironment(environment)
        #expect(configuration.baseURL == "https://openapi.tuyaeu.com")
        #expect(configuration.credentials.clientID == "1KAD46OrT9HafiKdsXeg")
        #expect(configuration.requestTimeout == .milliseconds(2500))
        #expect(configuration.retryPolicy.maxAttempts == 3)
        #expect(configuration.host == "openapi.tuyaeu.com")
    }

    @Test("--cloud URL beats the environment, which beats the config file")
    func precedence() throws {
        let file = ["url": "https://openapi.tuyaus.com", "client_id": "fileclient", "secret": "file-secret-123"]
        let fromFile = try CloudConfiguration.resolve(settings: file, environment: [:])
        #expect(fromFile.baseURL == "https://openapi.tuyaus.com" && fromFile.credentials.clientID == "fileclient")
        let fromEnvironment = try CloudConfiguration.resolve(settings: file, environment: environment)
        #expect(fromEnvironment.baseURL == "https://openapi.tuyaeu.com")
        let explicit = try CloudConfiguration.resolve(
            baseURL: "http://127.0.0.1:8787",
            settings: file,
            environment: environment
        )
        #expect(explicit.baseURL == "http://127.0.0.1:8787")
    }

    @Test("Missing credentials say where to put them, and that argv is not one of the places")
    func missingCredentials() {
        #expect(throws: NBGWError.self) {
            try CloudConfiguration.fromEnvironment(["NBGW_CLOUD_URL": "https://x.example"])
        }
        do {
            _ = try CloudConfiguration.fromEnvironment(["NBGW_CLOUD_URL": "https://x.example"])
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("NBGW_CLOUD_SECRET"))
            #expect(error.message.contains("never accepted on the command line"))
        }
    }

    @Test("Plain http is refused except to a loopback emulator")
    func httpsOnly() throws {
        let credentials = try CloudCredentials(clientID: "abc", secret: "secret-secret")
        #expect(throws: NBGWError.self) {
            try CloudConfiguration(baseURL: "http://openapi.tuyaeu.com", credentials: credentials)
        }
        #expect(throws: NBGWError.self) {
            try CloudConfiguration(baseURL: "https://openapi.tuyaeu.com/v1.0", credentials: credentials)
        }
        _ = try CloudConfiguration(baseURL: "http://127.0.0.1:9", credentials: credentials)
        _ = try CloudConfiguration(baseURL: "http://localhost:9", credentials: credentials)
    }

    @Test("A malformed secret is refused without being echoed")
    func badSecret() {
        do {
            _ = try CloudCredentials(clientID: "abc", secret: "has space inside")
            Issue.record("accepted a secret with spaces")
        } catch {
            #expect(!error.message.contains("has space inside"))
        }
    }
}
