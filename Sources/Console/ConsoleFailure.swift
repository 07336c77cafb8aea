import NBGWCore

/// Why the console refuses a request before or instead of its page.
enum ConsoleFailure: Error {
    /// No live session: pages redirect to the sign-in page, scripts get 401.
    case signInNeeded
    /// The session's role does not allow it.
    case forbidden(String)
    /// A form or script request without its session's CSRF token, or from another origin.
    case csrf(String)
    case notFound(String)
    /// A request the console cannot use (bad fields, a body too large): 400 or 413.
    case bad(NBGWError)
}
