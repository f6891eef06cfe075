/// One `--model NAME=CFG,WEIGHTS[,NAMES]`: the name clients use in the routes and the model's
/// files. `NAMES` is a names file (one class a line) or a darknet `.data` file (its `names=`);
/// without it a detector's names are found as `detect` finds them (coco.names beside the files).
///
/// Names are looked up in the server's table, never used as paths: a name is 1...64 of
/// `A-Z a-z 0-9 _ . -`, not starting with a dot.
package struct ModelSpec: Sendable, Hashable {
    package var name: String
    package var cfg: String
    package var weights: String
    package var names: String?

    /// Why a `--model` value was refused, naming the part at fault.
    package enum ParseError: Error, Equatable, CustomStringConvertible {
        case missingName(String)
        case badName(String)
        case fileCount(String, count: Int)
        case emptyFile(String)

        package var description: String {
            switch self {
            case .missingName(let value): "--model \(value): expected NAME=CFG,WEIGHTS[,NAMES]"
            case .badName(let name): "--model: the name \"\(name)\" must be 1 to 64 of A-Z a-z 0-9 _ . - and not start with a dot"
            case .fileCount(let value, let count): "--model \(value): \(count) files after the name, expected CFG,WEIGHTS[,NAMES]"
            case .emptyFile(let value): "--model \(value): an empty file name"
            }
        }
    }

    package init(name: String, cfg: String, weights: String, names: String? = nil) {
        self.name = name
        self.cfg = cfg
        self.weights = weights
        self.names = names
    }

    /// Parses `NAME=CFG,WEIGHTS[,NAMES]` (the first `=` ends the name; file names may hold `=`
    /// but not `,`).
    package init(parsing value: String) throws(ParseError) {
        guard let equals = value.firstIndex(of: "=") else { throw .missingName(value) }
        let name = String(value[..<equals])
        guard Self.isValidName(name) else { throw .badName(name) }
        let files = value[value.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard (2...3).contains(files.count) else { throw .fileCount(value, count: files.count) }
        guard !files.contains(where: \.isEmpty) else { throw .emptyFile(value) }
        self.init(name: name, cfg: files[0], weights: files[1], names: files.count == 3 ? files[2] : nil)
    }

    package static func isValidName(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count), name.first != "." else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        }
    }
}
