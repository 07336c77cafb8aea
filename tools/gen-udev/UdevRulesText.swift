import Discovery

/// `udev-rules/90-nbgw.rules`, generated from the module catalogue.
///
/// What the rules do on a tty of a known module is what ``CandidatePolicy`` decides from the catalogue
/// for the same interface: `ID_NBGW_PORT_TYPE` is ``KnownModule/role(ofInterface:)``, `ID_NBGW_AT_PORT=1`
/// and the dialect hint go exactly on the roles the policy probes (``PortRole/isProbed``), and a tty on an
/// interface the map does not list gets nothing unless the row has ``KnownModule/otherInterfaces``. The
/// fixed parts (the ModemManager veto on the USB device, `ID_NBGW_IGNORE`, group, mode, links) are the
/// header and footer below; `UdevadmCheckTests` runs the result through systemd's `udevadm test`.
enum UdevRulesText {
    static func render(_ modules: [KnownModule]) -> String {
        var lines = header
        lines += ["", "# --- The USB device of a known module: ModemManager must not grab any of its functions."]
        lines.append(#"LABEL="nbgw_usb_device""#)
        for (vendor, products) in productsByVendor(modules) {
            lines += TextWrap.rule([
                #"ATTR{idVendor}=="\#(vendor)""#, #"ATTR{idProduct}=="\#(products.joined(separator: "|"))""#,
                #"ENV{ID_MM_DEVICE_IGNORE}="1""#,
            ])
        }
        lines.append(#"GOTO="nbgw_end""#)
        lines += [
            "",
            "# --- A tty of a known vendor: read its USB interface number (bInterfaceNumber lives on the usb_interface",
            "# parent, idVendor/idProduct on the usb_device parent: one rule cannot match both, hence .NBGW_IF).",
            #"LABEL="nbgw_tty""#,
            #"ENV{ID_NBGW_IGNORE}=="1", GOTO="nbgw_end""#,
        ]
        let vendors = productsByVendor(modules).map(\.vendor).joined(separator: "|")
        lines += TextWrap.rule([
            #"SUBSYSTEMS=="usb""#, #"ATTRS{idVendor}=="\#(vendors)""#, #"GOTO="nbgw_known_vendor""#,
        ])
        lines += [
            #"GOTO="nbgw_end""#,
            #"LABEL="nbgw_known_vendor""#,
            #"SUBSYSTEMS=="usb", ATTRS{bInterfaceNumber}=="?*", ENV{.NBGW_IF}="$attr{bInterfaceNumber}""#,
            #"ENV{.NBGW_IF}!="?*", GOTO="nbgw_end""#,
        ]
        for module in modules {
            lines.append("")
            lines += block(module)
        }
        lines += footer
        return lines.joined(separator: "\n") + "\n"
    }

    /// One module: its name, IDs and note, its interface map, then one rule per listed interface and one
    /// for the interfaces it does not list when ``KnownModule/otherInterfaces`` says what they are.
    static func block(_ module: KnownModule) -> [String] {
        let ids = module.productIDs.map { "\(module.vendorID):\($0)" }.joined(separator: ", ")
        var lines = TextWrap.comment("\(module.name) (\(ids))" + (module.note.map { ": " + $0 } ?? ""))
        lines += TextWrap.items(mapEntries(module), separator: "   ", prefix: "#   ", continuation: "#   ")
        let match = [
            #"ATTRS{idVendor}=="\#(module.vendorID)""#,
            #"ATTRS{idProduct}=="\#(module.productIDs.joined(separator: "|"))""#,
        ]
        for (number, role) in module.interfaces.sorted(by: { $0.key < $1.key }) {
            let interface = #"ENV{.NBGW_IF}=="\#(InterfaceNumber.hex(number))""#
            lines += TextWrap.rule(match + [interface] + tags(role, hint: module.dialectHint))
        }
        if let other = module.otherInterfaces {
            let listed = module.interfaces.keys.sorted().map(InterfaceNumber.hex)
            let unlisted = listed.isEmpty ? [] : [#"ENV{.NBGW_IF}!="\#(listed.joined(separator: "|"))""#]
            lines += TextWrap.rule(match + unlisted + tags(other, hint: module.dialectHint))
        }
        return lines
    }

    /// `if 00 DIAG/QCDM`, `if 03 (ECM/QMI, no tty)`, `every other tty: unknown role, probed`.
    static func mapEntries(_ module: KnownModule) -> [String] {
        let numbers = Set(module.interfaces.keys).union(module.interfaceNotes.keys).sorted()
        var entries = numbers.map { number in
            let place = "if " + InterfaceNumber.hex(number)
            let note = module.interfaceNotes[number]
            guard let role = module.interfaces[number] else { return "\(place) (\(note ?? ""))" }
            return "\(place) \(role.commentLabel)" + (note.map { ": " + $0 } ?? "")
        }
        if let other = module.otherInterfaces {
            entries.append((module.interfaces.isEmpty ? "every tty: " : "every other tty: ") + other.commentLabel)
        }
        return entries
    }

    /// The assignments for a tty in `role`: what the policy probes gets the AT tag and the hint.
    static func tags(_ role: PortRole, hint: String?) -> [String] {
        var keys = [#"ENV{\#(CandidatePolicy.portTypeProperty)}="\#(role.rawValue)""#]
        if role.isProbed {
            keys.append(#"ENV{\#(CandidatePolicy.atPortProperty)}="1""#)
            if let hint { keys.append(#"ENV{\#(CandidatePolicy.dialectProperty)}="\#(hint)""#) }
        }
        return keys
    }

    /// Vendors in the order the catalogue first names them, each with its products in catalogue order.
    static func productsByVendor(_ modules: [KnownModule]) -> [(vendor: String, products: [String])] {
        var result: [(vendor: String, products: [String])] = []
        for module in modules {
            if let index = result.firstIndex(where: { $0.vendor == module.vendorID }) {
                result[index].products += module.productIDs
            } else {
                result.append((module.vendorID, module.productIDs))
            }
        }
        return result
    }

    static let header: [String] = [
        "# 90-nbgw.rules: udev rules for the NB-IoT / LTE-M modules nbgwd manages.",
        "#",
        "# Generated by nbgw-gen-udev (tools/gen-udev) from Sources/Discovery/KnownModule+Catalogue.swift: do not edit.",
        "# Change the catalogue, run `swift run nbgw-gen-udev` and commit both; tools/test.sh fails while this file is",
        "# not what the catalogue generates.",
        "#",
        "# Installed by the nbgw Debian package as /usr/lib/udev/rules.d/90-nbgw.rules (its postinst reloads udev).",
        "# By hand (as root):",
        "#   install -m 0644 udev-rules/90-nbgw.rules /etc/udev/rules.d/ && udevadm control --reload && udevadm trigger --subsystem-match=tty",
        "#",
        "# On every serial interface of a known module (the maps below; the module table of docs/discovery.md is",
        "# generated from the same catalogue):",
        "#   ENV{ID_NBGW_PORT_TYPE}      at | modem | diag | nmea | trace | audio | unknown: what the interface is",
        "#   ENV{ID_NBGW_AT_PORT}=\"1\"    the port nbgwd probes with AT (the primary AT port, or every port of unknown role)",
        "#   ENV{ID_NBGW_DIALECT}        the ATKit dialect the USB IDs suggest (AT ports only; the probe has the last word)",
        "#   ENV{ID_MM_DEVICE_IGNORE}=\"1\" so that an installed ModemManager leaves the module alone (also set on the",
        "#                               USB device itself, which covers its network and QMI functions)",
        "#   GROUP=\"dialout\", MODE=\"0660\" for nbgwd running as an unprivileged user in dialout",
        "#   /dev/nbgw/by-path/<ID_PATH>-if<NN>-<type>                   stable per USB port and interface",
        "#   /dev/nbgw/by-id/<vid>-<pid>-<serial>-if<NN>-<type>          stable per module, wherever it is plugged",
        "#",
        "# Generic USB-UART bridges (CP210x, CH340, FTDI, Exar, PL2303, J-Link VCOM) are not tagged here: behind one may be",
        "# a Zigbee stick, an ESP32, an Arduino or a barcode scanner. nbgwd leaves them alone unless a local rule tags the",
        "# port ENV{ID_NBGW_PROBE}=\"1\" (udev-rules/89-nbgw-local.rules.example: \"my BC66 sits behind a CP2102\") or the",
        "# daemon's config lists it ([discovery] probe); claiming every CP210x would also take unrelated devices from",
        "# ModemManager.",
        "#",
        "# A tty a local rule tags ENV{ID_NBGW_IGNORE}=\"1\" before this file runs (89-nbgw-local.rules) is left alone here",
        "# too: no tags, no ModemManager veto, no group or mode, no links. nbgwd never opens such a port.",
        "",
        #"ACTION=="remove", GOTO="nbgw_end""#,
        #"SUBSYSTEM=="usb", ENV{DEVTYPE}=="usb_device", GOTO="nbgw_usb_device""#,
        #"SUBSYSTEM=="tty", GOTO="nbgw_tty""#,
        #"GOTO="nbgw_end""#,
    ]

    static let footer: [String] = [
        "",
        "# --- Every port of a known module: keep ModemManager off, open it to dialout, and name it stably.",
        #"ENV{ID_NBGW_PORT_TYPE}!="?*", GOTO="nbgw_end""#,
        #"ENV{ID_MM_DEVICE_IGNORE}="1", GROUP="dialout", MODE="0660""#,
        #"ENV{ID_PATH}!="?*", IMPORT{builtin}="path_id""#,
        #"ENV{ID_PATH}=="?*", SYMLINK+="nbgw/by-path/$env{ID_PATH}-if$env{.NBGW_IF}-$env{ID_NBGW_PORT_TYPE}""#,
        #"ENV{ID_SERIAL_SHORT}!="?*", IMPORT{builtin}="usb_id""#,
        #"ENV{ID_SERIAL_SHORT}=="?*", \"#,
        #"    SYMLINK+="nbgw/by-id/$env{ID_VENDOR_ID}-$env{ID_MODEL_ID}-$env{ID_SERIAL_SHORT}-if$env{.NBGW_IF}-$env{ID_NBGW_PORT_TYPE}""#,
        "",
        #"LABEL="nbgw_end""#,
    ]
}
