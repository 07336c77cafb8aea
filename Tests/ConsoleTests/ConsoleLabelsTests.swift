import Cloud
import DeviceIdentity
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Provisioning
import QRImage
import Registry
import Testing

@testable import Console

/// The console's labels over real HTTP: a module's label image and PDF, and a sheet of the
/// modules without a printed label, read back with zbar and checked in the store's printing record.
@Suite struct ConsoleLabelsTests {
    @Test func aModulePageShowsItsLabelWhoseCodeScansBackToTheModule() async throws {
        let console = ConsoleHTTPTests()
        try await console.withConsole { client, registry in
            let registration = try await DeviceRegistrar(cloud: EmbeddedCloud(), registry: registry)
                .register(imei: Self.imei(1))
            let device = registration.device.deviceID
            let (cookie, _) = try await console.signIn(client, "ana", "right password")

            let image = try await client.execute(uri: "/labels/\(device).png", method: .get, headers: [.cookie: cookie])
            #expect(image.status == .ok)
            #expect(image.headers[.contentType] == "image/png")
            let grey = try QRImageReader.greyImage(Array(buffer: image.body), name: "label.png")
            #expect(QRImageReader.decode(grey) == [registration.labelPayload], "the label's QR is the module's payload")

            let pdf = try await client.execute(uri: "/labels/\(device).pdf", method: .get, headers: [.cookie: cookie])
            #expect(pdf.status == .ok)
            #expect(String(buffer: pdf.body).hasPrefix("%PDF-"))
            #expect(try registry.labels.prints(deviceID: device).isEmpty, "looking at a label does not print it")

            let unknown = try await client.execute(
                uri: "/labels/nbnothere.png",
                method: .get,
                headers: [.cookie: cookie]
            )
            #expect(unknown.status == .notFound)
            let anonymous = try await client.execute(uri: "/labels/\(device).png", method: .get)
            #expect(anonymous.status != .ok, "labels need a session")
            let (binderCookie, _) = try await console.signIn(client, "bo", "binder password")
            let binder = try await client.execute(
                uri: "/labels/\(device).png",
                method: .get,
                headers: [.cookie: binderCookie]
            )
            #expect(binder.status == .forbidden, "labels are the operators'")
        }
    }

    @Test func printingTheUnprintedLabelsGivesOneSheetAndRecordsEachModuleOnce() async throws {
        let console = ConsoleHTTPTests()
        try await console.withConsole { client, registry in
            var payloads: [String] = []
            for serial in 1...3 {
                let registration = try await DeviceRegistrar(cloud: EmbeddedCloud(), registry: registry)
                    .register(imei: Self.imei(serial))
                payloads.append(registration.labelPayload)
            }
            let (cookie, csrf) = try await console.signIn(client, "ana", "right password")
            let form: HTTPFields = [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"]
            let before = String(buffer: try await client.execute(uri: "/modems", method: .get, headers: form).body)
            #expect(before.contains("3 registered modules have no printed label yet"))

            let forged = try await client.execute(
                uri: "/labels/print",
                method: .post,
                headers: form,
                body: ByteBuffer(string: "csrf=forged")
            )
            #expect(forged.status == .forbidden)
            #expect(try registry.labels.devices(.unprinted).count == 3, "a forged request prints nothing")

            let sheet = try await client.execute(
                uri: "/labels/print",
                method: .post,
                headers: form,
                body: ByteBuffer(string: "csrf=\(csrf)")
            )
            #expect(sheet.status == .ok)
            #expect(sheet.headers[.contentType] == "application/pdf")
            #expect(sheet.headers[.contentDisposition]?.hasPrefix("attachment;") == true)
            #expect(String(buffer: sheet.body).hasPrefix("%PDF-"))
            #expect(try registry.labels.devices(.unprinted).isEmpty)
            for device in try registry.labels.devices(.all) {
                let prints = try registry.labels.prints(deviceID: device.deviceID)
                #expect(prints.count == 1)
                #expect(prints.first?.operator == "ana")
                #expect(prints.first?.destination == "console")
                #expect(prints.first?.format == "pdf")
            }
            let after = String(buffer: try await client.execute(uri: "/modems", method: .get, headers: form).body)
            #expect(after.contains("Every registered module has a printed label."))

            let again = try await client.execute(
                uri: "/labels/print",
                method: .post,
                headers: form,
                body: ByteBuffer(string: "csrf=\(csrf)")
            )
            #expect(again.status == .seeOther, "nothing left to print: back to the modems page")
            #expect(try registry.labels.prints(deviceID: registry.labels.devices(.all)[0].deviceID).count == 1)
        }
    }

    static func imei(_ serial: Int) -> String {
        let digits = String(format: "35693804%06d", serial)
        return digits + String(Luhn.checkDigit(for: digits))
    }
}
