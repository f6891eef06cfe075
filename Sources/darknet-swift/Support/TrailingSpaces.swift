extension String {
    /// The text without its trailing spaces and tabs: one pass from the end, where the regular
    /// expression `\s+$` retried every run of spaces inside a padded row (a `[route]` over
    /// 1,000 layers pads every row of `benchmark`'s table to thousands of columns: minutes).
    var droppingTrailingSpaces: String {
        var end = utf8.endIndex
        while end > utf8.startIndex {
            let before = utf8.index(before: end)
            guard utf8[before] == UInt8(ascii: " ") || utf8[before] == UInt8(ascii: "\t") else { break }
            end = before
        }
        return String(self[..<end])
    }
}
