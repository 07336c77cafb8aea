/// The 88-bit fixed part of a Matter QR payload (Matter Core spec §5.1.3.1), packed least significant bit first:
/// version 3, vendor ID 16, product ID 16, commissioning flow 2, discovery capabilities 8, discriminator 12,
/// passcode 27, padding 4. Bit `n` of the payload is bit `n % 8` of byte `n / 8`.
enum MatterQRCodeLayout {
    /// The raw field values, unchecked.
    struct Fields: Equatable {
        var version = 0
        var vendorID = 0
        var productID = 0
        var commissioningFlow = 0
        var rendezvousInformation = 0
        var discriminator = 0
        var passcode = 0
        var padding = 0
    }

    static let versionBits = 3
    static let vendorIDBits = 16
    static let productIDBits = 16
    static let commissioningFlowBits = 2
    static let rendezvousBits = 8
    static let discriminatorBits = 12
    static let passcodeBits = 27
    static let paddingBits = 4

    /// 88 bits = 11 bytes.
    static let fixedByteCount = 11

    /// Field widths in payload order.
    private static let widths = [
        versionBits, vendorIDBits, productIDBits, commissioningFlowBits, rendezvousBits, discriminatorBits,
        passcodeBits, paddingBits,
    ]

    /// Reads the fixed part from the first 11 bytes; `bytes` must hold at least 11.
    static func unpack(_ bytes: [UInt8]) -> Fields {
        precondition(bytes.count >= fixedByteCount, "a Matter QR payload needs 11 bytes")
        var bitOffset = 0
        var values: [Int] = []
        for width in widths {
            var value = 0
            for bit in 0..<width {
                let position = bitOffset + bit
                if bytes[position / 8] >> (position % 8) & 1 == 1 {
                    value |= 1 << bit
                }
            }
            values.append(value)
            bitOffset += width
        }
        return Fields(
            version: values[0],
            vendorID: values[1],
            productID: values[2],
            commissioningFlow: values[3],
            rendezvousInformation: values[4],
            discriminator: values[5],
            passcode: values[6],
            padding: values[7]
        )
    }

    /// Writes the fixed part as 11 bytes; each value is cut to its field width.
    static func pack(_ fields: Fields) -> [UInt8] {
        let values = [
            fields.version, fields.vendorID, fields.productID, fields.commissioningFlow, fields.rendezvousInformation,
            fields.discriminator, fields.passcode, fields.padding,
        ]
        var bytes = [UInt8](repeating: 0, count: fixedByteCount)
        var bitOffset = 0
        for (value, width) in zip(values, widths) {
            for bit in 0..<width where value >> bit & 1 == 1 {
                let position = bitOffset + bit
                bytes[position / 8] |= 1 << UInt8(position % 8)
            }
            bitOffset += width
        }
        return bytes
    }
}
