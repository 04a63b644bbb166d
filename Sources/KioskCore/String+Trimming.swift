extension String {
    /// The string without leading and trailing white space and line breaks (`\r\n` included), without Foundation.
    func trimmingASCIIWhitespace() -> String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
