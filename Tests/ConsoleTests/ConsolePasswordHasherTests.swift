import Foundation
import Testing

@testable import Console

@Suite struct ConsolePasswordHasherTests {
    @Test func theStandardCostIsScryptN2To15R8P3Using32MiB() {
        let hasher = ConsolePasswordHasher.standard
        #expect(hasher.logN == 15)
        #expect(hasher.blockSize == 8)
        #expect(hasher.parallelism == 3)
        #expect(hasher.memoryBytes == 32 * 1024 * 1024)
    }

    @Test func aHashNamesItsParametersAndVerifiesOnlyItsPassword() throws {
        let hasher = ConsolePasswordHasher.standard
        let started = ContinuousClock.now
        let phc = try hasher.hash("correct horse battery")
        print("scrypt ln=15 r=8 p=3: one hash took \(ContinuousClock.now - started) (tools/bench-kdf.sh measures it)")
        #expect(phc.hasPrefix("$scrypt$ln=15,r=8,p=3$"))
        #expect(hasher.verify("correct horse battery", against: phc))
        #expect(!hasher.verify("correct horse batterY", against: phc))
        #expect(!hasher.verify("", against: phc))
    }

    @Test func theSamePasswordHashesDifferentlyEachTime() throws {
        let hasher = ConsolePasswordHasher(logN: 10)
        #expect(try hasher.hash("same password") != (try hasher.hash("same password")))
    }

    @Test func aHashWithItsCostLoweredNoLongerVerifies() throws {
        let hasher = ConsolePasswordHasher(logN: 10)
        let phc = try hasher.hash("a password")
        let weakened = phc.replacingOccurrences(of: "ln=10", with: "ln=9")
        #expect(!hasher.verify("a password", against: weakened))
    }

    @Test func anOldCostStillVerifiesUnderTheNewStandard() throws {
        let old = try ConsolePasswordHasher(logN: 10, parallelism: 1).hash("kept password")
        #expect(ConsolePasswordHasher.standard.verify("kept password", against: old))
    }

    @Test(arguments: [
        "", "plain", "$scrypt$ln=15,r=8$AAAA$AAAA",
        "$scrypt$ln=40,r=8,p=1$c2FsdHNhbHQ$" + String(repeating: "A", count: 43), "$bcrypt$x$y$z",
    ])
    func stringsThatAreNotOurHashesNeverVerify(_ phc: String) {
        #expect(!ConsolePasswordHasher.standard.verify("anything", against: phc))
    }
}
