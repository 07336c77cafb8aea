extension TLSIdentity {
    /// Who serves with an identity, for its messages: a wrong key file tells the operator which
    /// user must own it, which unit gets it through `LoadCredential=`, and where the guide is.
    public struct Owner: Sendable, Equatable {
        /// The program an operator runs (`nbgw`, `nbgw-cloud`).
        public var program: String
        /// The service a unit runs it as (`nbgwd`, `nbgw-cloud`).
        public var service: String
        /// Where the documentation of its TLS settings is (`docs/ingest.md, "TLS"`).
        public var guide: String

        public init(program: String, service: String, guide: String) {
            self.program = program
            self.service = service
            self.guide = guide
        }
    }
}
