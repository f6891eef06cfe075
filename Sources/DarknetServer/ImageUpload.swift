import Foundation
import Imaging

/// The image of a `detect` or `classify` request and the name its answer gives it: the raw
/// body (any `Content-Type` but `multipart/form-data`; named `body`), or the first part of a
/// `multipart/form-data` body that carries a file (`filename=`), else its part named `image`
/// or `file` (named by its `filename`, else the part's name), as `curl -F image=@dog.jpg` sends it.
package struct ImageUpload: Sendable {
    package var bytes: [UInt8]
    package var name: String

    package init(body: [UInt8], contentType: String?) throws(ServerError) {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else {
            guard !body.isEmpty else { throw .badImage("the body is empty: expected a JPEG or PNG") }
            self.init(bytes: body, name: "body")
            return
        }
        let parts = try Multipart.parts(of: body, contentType: contentType)
        guard let part = parts.first(where: { $0.filename != nil }) ?? parts.first(where: { $0.name == "image" || $0.name == "file" })
        else { throw .badRequest("multipart body: no part with a filename, and none named image or file") }
        self.init(bytes: part.body, name: part.filename ?? part.name ?? "image")
    }

    package init(bytes: [UInt8], name: String) {
        self.bytes = bytes
        self.name = name
    }

    /// The decoded image, with `channels` as the network reads it (`Image(decoding:channels:)`,
    /// as `detect` decodes a file), refused past `maxPixels`. A format that is not JPEG or
    /// PNG is 415, too many pixels 422, a broken file 400.
    package func decoded(channels: Int, maxPixels: Int) throws(ServerError) -> Image {
        do {
            return try Image(decoding: bytes, name: name, channels: channels, maxPixels: maxPixels)
        } catch let error as ImageError {
            switch error {
            case .tooLarge: throw .imageTooLarge("\(error)")
            case .unsupportedFormat: throw .unsupportedMediaType("\(error): expected a JPEG or PNG")
            default: throw .badImage("\(error)")
            }
        } catch {
            throw .badImage("\(name): \(error)")
        }
    }
}
