import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The state-change hooks of a real `nbgwd` on simulated modules: real scripts in a real directory.
@Suite("nbgwd state-change hooks", .serialized, .timeLimit(.minutes(3)))
struct DaemonHookTests {
    /// Writes an executable hook script.
    static func hook(_ directory: String, _ name: String, _ body: String, mode: mode_t = 0o755) throws {
        let path = directory + "/" + name
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, mode)
    }

    @Test("hooks see every transition to ready with the module's facts; a stuck hook is killed, a failing one logged")
    func stateChangeHooks() async throws {
        let directory = try TemporaryDirectory()
        let hooks = directory.path("hooks.d")
        let out = directory.path("out")
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        chmod(hooks, 0o755)
        try Self.hook(
            hooks,
            "10-record",
            """
            name=$(basename "$NBGW_PORT")
            if [ "$NBGW_STATE" = ready ]; then
              env | sort > "\(out)/$name.env"
              for fd in /proc/$$/fd/*; do readlink "$fd"; done > "\(out)/$name.fds.part"
              mv "\(out)/$name.fds.part" "\(out)/$name.fds"
            fi
            # The event line last: a reader that sees "ready" finds the files above complete.
            printf '%s|%s|%s|%s|%s|%s|%s|%s|%s\\n' "$NBGW_PREVIOUS_STATE" "$NBGW_STATE" "$NBGW_IMEI" \
              "$NBGW_DEVICE_ID" "$NBGW_MODEL" "$NBGW_FIRMWARE" "${NBGW_ERROR_CODE:-$NBGW_REASON_CODE}" "$NBGW_EVENT_TIME" \
              "$(date +%s.%N)" >> "\(out)/$name.events"
            """
        )
        try Self.hook(hooks, "20-fail", "echo \"boom on $NBGW_PORT\" >&2\nexit 3")
        try Self.hook(hooks, "30-stuck", "echo $$ >> \"\(out)/stuck.pids\"\nexec /bin/sleep 987650")
        try Self.hook(hooks, "40-open", "touch \"\(out)/world-writable-ran\"", mode: 0o757)

        let simulator = try SimulatorProcess(["bg95", "bc66,registration=denied"], directory: directory)
        try await simulator.waitForPorts()
        let config = DaemonProcess.config(
            ports: simulator.ports.map(\.path),
            store: directory.path("store.sqlite"),
            extra: "\n[hooks]\ndirectory = \"\(hooks)\"\ntimeout = 2\n"
        )
        let daemon = try DaemonProcess(
            config: config,
            directory: directory,
            environment: ["NBGW_SECRET_OF_THE_PARENT": "must-not-reach-hooks", "HOME": "/root"]
        )
        try await daemon.waitForReady()
        let rows = try await daemon.waitForModems("port 0 ready") { rows in
            rows.contains { $0.port == simulator.ports[0].path && $0.state == "ready" }
        }
        let ready = try #require(rows.first { $0.port == simulator.ports[0].path })
        let readyAt = ready.stateSince
        let name = URL(fileURLWithPath: ready.port).lastPathComponent
        let eventsPath = "\(out)/\(name).events"
        func events() -> [[String]] {
            ((try? String(contentsOfFile: eventsPath, encoding: .utf8)) ?? "").split(separator: "\n").map {
                $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            }
        }
        // Each change waits for the stuck hook's 2 s timeout: the ready change's hooks come last.
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while events().last?[1] != "ready", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        // The hook appends the event first and writes the environment and descriptor files after:
        // wait for the last of them (the descriptors, renamed into place once complete), not just
        // for the event line.
        let fdsPath = "\(out)/\(name).fds"
        while ((try? String(contentsOfFile: fdsPath, encoding: .utf8)) ?? "").isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        let seen = events()
        #expect(
            seen.map { "\($0[0])>\($0[1])" }
                == [
                    ">probing", "probing>configuring", "configuring>searching", "searching>registering",
                    "registering>ready",
                ],
            "\(seen)\n\(daemon.log)"
        )
        let last = try #require(seen.last)
        #expect(last[2] == ready.imei)
        #expect(last[3] == ready.deviceID && last[3].hasPrefix("nb"))
        #expect(last[4] == ready.model && last[5] == ready.firmware)
        #expect(last[6].isEmpty)
        #expect(last[7].hasSuffix("Z") && last[7].count == 24, "NBGW_EVENT_TIME \(last[7])")
        // The module was ready long before its hooks got there: nothing waited for them.
        let hookRanAt = Date(timeIntervalSince1970: Double(last[8]) ?? 0)
        #expect(hookRanAt.timeIntervalSince(readyAt) > 4, "ready at \(readyAt), its hook ran at \(hookRanAt)")

        let environment = try String(contentsOfFile: "\(out)/\(name).env", encoding: .utf8).split(separator: "\n")
        let keys = Set(environment.compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
        #expect(
            keys.subtracting(["PWD"])
                == [
                    "PATH", "NBGW_PORT", "NBGW_IMEI", "NBGW_STATE", "NBGW_PREVIOUS_STATE", "NBGW_DEVICE_ID",
                    "NBGW_ERROR_CODE", "NBGW_ERROR", "NBGW_REASON_CODE", "NBGW_REASON", "NBGW_MODEL", "NBGW_FIRMWARE",
                    "NBGW_EVENT_TIME", "NBGW_DB",
                ],
            "\(environment)"
        )
        #expect(environment.contains("NBGW_DB=\(daemon.storePath)"))
        #expect(environment.contains("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"))
        let descriptors = try String(contentsOfFile: "\(out)/\(name).fds", encoding: .utf8)
        #expect(
            !descriptors.contains("socket:") && !descriptors.contains("sqlite") && !descriptors.contains("/dev/pts"),
            "the hook inherited: \(descriptors)"
        )

        // The denied module's waiting reaches the hooks with its reason.
        let deniedEvents =
            ((try? String(
                contentsOfFile: "\(out)/\(URL(fileURLWithPath: simulator.ports[1].path).lastPathComponent).events",
                encoding: .utf8
            )) ?? "")
        #expect(deniedEvents.contains("|waiting|") && deniedEvents.contains("REGISTRATION_DENIED"), "\(deniedEvents)")

        let log = daemon.log
        #expect(log.contains("hook timed out after 2.0 seconds") && log.contains("hook=30-stuck"), "\(log)")
        #expect(log.contains("exit_status=3") && log.contains("output=boom on \(ready.port)"), "\(log)")
        #expect(log.contains("hook failed: exit status 3"))
        #expect(log.contains("hook refused") && log.contains("writable by every user (mode 757)"))
        #expect(!FileManager.default.fileExists(atPath: "\(out)/world-writable-ran"))

        let metrics = try await DaemonMetricsTests.scrape(daemon)
        #expect((metrics.value("nbgw_hook_runs_total", ["result": "ok"]) ?? 0) >= 5)
        #expect((metrics.value("nbgw_hook_runs_total", ["result": "failed"]) ?? 0) >= 5)
        #expect((metrics.value("nbgw_hook_runs_total", ["result": "timeout"]) ?? 0) >= 5)
        #expect(metrics.value("nbgw_hook_dropped_total") == 0)

        // A stop while the stuck hook runs: it is stopped, and the daemon stops in time, cleanly.
        daemon.send(SIGTERM)
        #expect(try await daemon.waitForExit(timeout: .seconds(15)) == 0, "\(daemon.log.suffix(2000))")
        let pids = try String(contentsOfFile: "\(out)/stuck.pids", encoding: .utf8).split(separator: "\n")
        for pid in pids.compactMap({ Int32($0) }) {
            #expect(!HookRunnerTests.alive(pid, running: "987650"), "stuck hook \(pid) outlived the daemon")
        }
        simulator.stop()
    }
}
