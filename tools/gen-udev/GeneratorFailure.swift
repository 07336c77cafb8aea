/// Why the generator could not do its work, said so that the reader knows what to do.
struct GeneratorFailure: Error, CustomStringConvertible {
    var description: String
}
