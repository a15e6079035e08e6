import HTTPTypes

extension HTTPField.Name {
    /// RFC 8288: where the next page of a list is (`rel="next"`).
    package static let link = HTTPField.Name("Link")!
}
