import ArgumentParser
import Foundation
import Provisioning

struct CloudCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloud",
        abstract: "Keep the local store and a remote cloud consistent (outbox, divergences).",
        subcommands: [CloudSync.self]
    )
}

struct CloudSync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Send queued cloud work (registrations, binds, unbinds); --check also reports divergences.",
        discussion: """
            Local changes are committed first, with their cloud work queued in the same transaction \
            (the outbox). This sends what is queued, each row once (idempotency keys on the wire). \
            --check then compares the store with the cloud and lists every divergence. Exit 0 when all \
            work is sent (and, with --check, nothing diverges), 1 otherwise.
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var cloudOptions: CloudOptions

    @Flag(help: "Compare local devices and bindings with the cloud's and report divergences.")
    var check = false

    @Flag(name: .customLong("no-send"), help: "Only check; do not send queued work first.")
    var noSend = false

    struct Report: Encodable {
        var drain: OutboxDrainReport?
        var check: CloudSyncReport?
    }

    func run() async throws {
        try await Output.run(json: store.json) {
            let registry = try store.openExistingRegistry()
            let report = try await cloudOptions.withSyncingCloud { cloud in
                let drain = noSend ? nil : await OutboxDrainer(registry: registry, cloud: cloud).drain()
                let divergences = check ? try await CloudSyncChecker.check(registry: registry, cloud: cloud) : nil
                return Report(drain: drain, check: divergences)
            }
            if store.json {
                Output.json(report)
            } else {
                if let drain = report.drain {
                    Output.line("sent: \(drain.sent)  rescheduled: \(drain.rescheduled)  dead: \(drain.dead)")
                    if let stopped = drain.stoppedBy { Output.line("stopped: \(stopped)") }
                    for failure in drain.failures {
                        Output.line(
                            "  #\(failure.outboxID) \(failure.operation) \(failure.subject): \(failure.code) "
                                + "\(failure.message)\(failure.final ? " (dead)" : " (will retry)")"
                        )
                    }
                    let left = drain.remaining.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                    Output.line("outbox: \(left.joined(separator: " "))")
                }
                if let check = report.check {
                    Output.line(
                        "devices: local \(check.localDevices), cloud \(check.cloudDevices); bindings: local "
                            + "\(check.localBindings), cloud \(check.cloudBindings)"
                    )
                    if check.isConsistent {
                        Output.line("consistent: no divergence")
                    } else {
                        for divergence in check.divergences {
                            Output.line(
                                "  \(divergence.kind.rawValue): \(divergence.deviceID ?? divergence.imei ?? "-") \(divergence.detail)"
                            )
                        }
                    }
                }
            }
            let drained = report.drain?.isComplete ?? true
            let consistent = report.check?.isConsistent ?? true
            if !drained || !consistent { throw ExitCode(1) }
        }
    }
}
