import GRDB

/// One of the batch writer's set-wise inserts: `INSERT … SELECT … FROM (VALUES (…), (…), …)`, every
/// value a bound parameter, run over a chunk's rows in statements of ``sizes`` rows (the largest
/// that fit, so a chunk takes a few dozen statements, not one per row). The schema's keys and
/// triggers check every row as for any insert.
///
/// Why not one statement over a JSON array (`json_each`, what the batch used before): building the
/// array's text and SQLite parsing it back cost a tenth of the inserts themselves. SQLite doing the
/// same chunked writes for 950,000 devices on this machine (median of 4, same run): 3.86 s from
/// JSON arrays, 3.61 s from bound VALUES rows, 3.56 s read from a table (what no input format can
/// beat), 3.37 s in one statement. A million-row batch took 5.46 s instead of 5.95 (median of 4
/// alternating runs).
final class BatchRowInsert {
    /// Rows per statement, largest first; the last is 1, so any count can be made of them.
    static let sizes = [256, 16, 1]

    private let statements: [(rows: Int, statement: PreparedStatement)]
    private let constants: Int32
    private let arity: Int32

    /// - Parameters:
    ///   - head: `INSERT INTO table (columns) SELECT expressions`, where the expressions name the
    ///     row's values `column1`, `column2`, … (SQLite's names for a VALUES list's columns) and
    ///     the constants `?1` … `?constants`.
    ///   - arity: values per row.
    init(_ db: Database, _ head: String, constants: Int, arity: Int) throws {
        self.constants = Int32(constants)
        self.arity = Int32(arity)
        statements = try BatchRowInsert.sizes.map { rows in
            let sql = head + " FROM (VALUES " + BatchRowInsert.tuples(rows, arity: arity, after: constants) + ")"
            return (rows, try PreparedStatement(db, sql: sql))
        }
    }

    /// `(?k+1, ?k+2), (?k+3, ?k+4), …`: `rows` tuples of `arity` parameters numbered after `k`.
    static func tuples(_ rows: Int, arity: Int, after k: Int) -> String {
        var parameter = k
        return (0..<rows).map { _ in
            "("
                + (0..<arity).map { _ in
                    parameter += 1
                    return "?\(parameter)"
                }.joined(separator: ", ") + ")"
        }.joined(separator: ", ")
    }

    /// Inserts `count` rows: `constants` binds `?1` … on each statement, `row(statement, index,
    /// parameter)` binds row `index`'s values from `parameter` on.
    func run(
        count: Int,
        constants bindConstants: (PreparedStatement) -> Void,
        row bindRow: (PreparedStatement, Int, Int32) -> Void
    ) throws {
        var done = 0
        for (rows, statement) in statements {
            while count - done >= rows {
                bindConstants(statement)
                var parameter = constants + 1
                for index in done..<(done + rows) {
                    bindRow(statement, index, parameter)
                    parameter += arity
                }
                try statement.run()
                done += rows
            }
        }
    }
}
