/// The Swift examples of `docs/`, one file each: each file is shown whole in the page that
/// names it (`<!-- example: Examples/Snippets/NAME.swift -->` above its block), and built
/// with the package, so an example that stops compiling fails the build, and one that
/// differs from its page fails `DocsAgreementTests`.
enum Snippets {}
