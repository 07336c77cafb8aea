import Discovery
import Foundation

/// `nbgw-gen-udev`: writes `udev-rules/90-nbgw.rules` and the module table of `docs/discovery.md` from
/// ``KnownModule/catalogue``, or (`--check`) says which of them is not what the catalogue generates.
///
/// The interface map of a module lives once, in `Sources/Discovery/KnownModule+Catalogue.swift`; the
/// two files are its renderings (``UdevRulesText``, ``ModuleTableText``). `tools/test.sh` runs the
/// check after the build, so a catalogue change without the regenerated files fails CI before any test.
@main
enum GenerateUdev {
    static let usage = """
        usage: nbgw-gen-udev [--check] [--root DIR]
        Writes udev-rules/90-nbgw.rules and the module table of docs/discovery.md from KnownModule.catalogue
        (Sources/Discovery/KnownModule+Catalogue.swift), as built into this binary: use `swift run nbgw-gen-udev`,
        which rebuilds it first.
          --check     write nothing; exit 1 naming each file that is not what the catalogue generates
          --root DIR  the repository's root (default: the current directory)
        """

    static let rulesPath = "udev-rules/90-nbgw.rules"
    static let docsPath = "docs/discovery.md"

    static func main() {
        exit(run(Array(CommandLine.arguments.dropFirst())))
    }

    /// Runs one command line; returns the exit status (0 done or current, 1 stale, 64 usage, 65 bad
    /// catalogue or markers, 74 a file that cannot be read or written).
    static func run(_ arguments: [String], catalogue: [KnownModule] = KnownModule.catalogue) -> Int32 {
        var check = false
        var root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--check": check = true
            case "--root":
                guard let path = rest.popFirst() else { return fail("--root needs a directory\n\(usage)", 64) }
                root = URL(fileURLWithPath: path)
            case "-h", "--help":
                print(usage)
                return 0
            default: return fail("unknown argument \"\(argument)\"\n\(usage)", 64)
            }
        }
        let problems = CatalogueProblem.all(in: catalogue)
        guard problems.isEmpty else {
            return fail(problems.map(\.description).joined(separator: "\n") + "\nnothing written", 65)
        }
        let files: [GeneratedFile]
        do {
            files = try generate(root: root, catalogue: catalogue)
        } catch let failure as GeneratedRegion.MarkerProblem {
            return fail(failure.description, 65)
        } catch {
            return fail("\(error)", 74)
        }
        if check {
            let stale = files.filter { !$0.isCurrent }
            for file in stale {
                printError(
                    "nbgw-gen-udev: \(file.path) is stale: it is not what KnownModule.catalogue generates "
                        + "(\(file.firstDifference)); run `swift run nbgw-gen-udev` and commit the result"
                )
            }
            return stale.isEmpty ? 0 : 1
        }
        for file in files {
            if file.isCurrent {
                print("nbgw-gen-udev: \(file.path) is current")
                continue
            }
            do {
                try file.write(root: root)
            } catch {
                return fail("\(error)", 74)
            }
            print("nbgw-gen-udev: wrote \(file.path)")
        }
        return 0
    }

    /// The two files as they are under `root` and as `catalogue` generates them.
    static func generate(root: URL, catalogue: [KnownModule]) throws -> [GeneratedFile] {
        let docs = try read(docsPath, root: root)
        let rules = (try? read(rulesPath, root: root)) ?? ""
        return [
            GeneratedFile(path: rulesPath, current: rules, expected: UdevRulesText.render(catalogue)),
            GeneratedFile(
                path: docsPath,
                current: docs,
                expected: try GeneratedRegion.replacing(
                    in: docs,
                    path: docsPath,
                    with: ModuleTableText.render(catalogue)
                )
            ),
        ]
    }

    static func read(_ path: String, root: URL) throws -> String {
        let url = root.appendingPathComponent(path)
        do {
            return try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw GeneratorFailure(
                description: "\(path): cannot read \(url.path) (run from the repository's root, or pass --root)"
            )
        }
    }

    private static func fail(_ message: String, _ status: Int32) -> Int32 {
        printError(message.hasPrefix("nbgw-gen-udev") ? message : "nbgw-gen-udev: " + message)
        return status
    }

    private static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
