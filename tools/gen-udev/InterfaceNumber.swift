/// A USB interface number as sysfs prints `bInterfaceNumber`, and so as `.NBGW_IF` holds it: two
/// lower-case hex digits (`0a` is 10).
enum InterfaceNumber {
    static func hex(_ value: Int) -> String {
        let digits = String(value, radix: 16)
        return digits.count < 2 ? "0" + digits : digits
    }
}
