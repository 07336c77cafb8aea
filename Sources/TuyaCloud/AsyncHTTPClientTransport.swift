import AsyncHTTPClient
import NIOSSL

/// ``CloudHTTPTransport`` over AsyncHTTPClient: its own client with the configured connect timeout,
/// no redirects (a redirect would send signed headers to another URL) and no decompression.
/// Call ``shutdown()`` when done (``HTTPCloud/shutdown()`` does).
public final class AsyncHTTPClientTransport: CloudHTTPTransport {
    let client: HTTPClient
    let maximumResponseBytes: Int

    /// - Parameter trustedAuthorities: the CAs the server's certificate must chain to instead of
    ///   the system's (hostname checked as always); nil: the system's trust store.
    public init(
        connectTimeout: Duration,
        maximumResponseBytes: Int = 1 << 20,
        trustedAuthorities: CloudTrustedAuthorities? = nil
    ) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .milliseconds(connectTimeout.wholeMilliseconds)),
            decompression: .disabled
        )
        if let trustedAuthorities {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(trustedAuthorities.certificates)
            tls.minimumTLSVersion = .tlsv12
            configuration.tlsConfiguration = tls
        }
        self.client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        self.maximumResponseBytes = maximumResponseBytes
    }

    public func send(_ request: CloudHTTPRequest, timeout: Duration) async throws -> CloudHTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = .init(rawValue: request.method)
        for header in request.headers {
            outgoing.headers.add(name: header.name, value: header.value)
        }
        if !request.body.isEmpty || request.method == "POST" || request.method == "PUT" {
            outgoing.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
            outgoing.body = .bytes(request.body)
        }
        do {
            let response = try await client.execute(
                outgoing,
                timeout: .milliseconds(max(1, timeout.wholeMilliseconds))
            )
            // The deadline covers the response head; the body of an OpenAPI answer is small and
            // arrives with it, and the size cap bounds a misdirected download.
            let body = try await response.body.collect(upTo: maximumResponseBytes)
            var headers: [String: String] = [:]
            for header in response.headers {
                headers[header.name.lowercased()] = header.value
            }
            return CloudHTTPResponse(
                status: Int(response.status.code),
                headers: headers,
                body: Array(body.readableBytesView)
            )
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as HTTPClientError where error == .cancelled || Task.isCancelled {
            // AsyncHTTPClient ends a request whose task was cancelled with its own error.
            throw CancellationError()
        } catch let error as HTTPClientError {
            throw AsyncHTTPClientTransport.classify(error)
        } catch let error as NIOSSLError {
            // The words an operator needs: whose certificate, and the setting that decides trust.
            throw CloudTransportError(
                .connection,
                "TLS with the cloud failed (\(error)): if the cloud's certificate is issued by a private CA, "
                    + "set ca_file (or NBGW_CLOUD_CA_FILE) to that CA's PEM file (docs/fleet.md, \"TLS\")"
            )
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw CloudTransportError(.connection, String(describing: error))
        }
    }

    public func shutdown() async {
        try? await client.shutdown()
    }

    static func classify(_ error: HTTPClientError) -> CloudTransportError {
        let timeouts: [HTTPClientError] = [
            .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
            .getConnectionFromPoolTimeout,
        ]
        let unusable: [HTTPClientError] = [.invalidURL, .emptyHost, .emptyScheme, .alreadyShutdown]
        if timeouts.contains(error) {
            return CloudTransportError(.timedOut, String(describing: error))
        }
        if unusable.contains(error) {
            return CloudTransportError(.unusable, String(describing: error))
        }
        if error == .remoteConnectionClosed {
            return CloudTransportError(.connection, "the cloud closed the connection before answering")
        }
        return CloudTransportError(.connection, String(describing: error))
    }
}
