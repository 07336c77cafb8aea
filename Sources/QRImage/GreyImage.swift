/// An 8-bit grey image (zbar's `Y800`), one byte per pixel, row after row.
public struct GreyImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "a grey image has width × height pixels")
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}
