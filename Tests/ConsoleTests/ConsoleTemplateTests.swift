import Foundation
import Testing

@testable import Console

@Suite struct ConsoleTemplateTests {
    let hostile = "<script>alert('x')</script>\"><img src=x onerror=alert(1)>&"

    @Test func noTemplateUsesTheUnescapedForms() {
        for (name, source) in ConsoleTemplates.sources {
            #expect(!source.contains("{{{"), "\(name) uses {{{…}}}")
            #expect(!source.contains("{{&"), "\(name) uses {{&…}}")
        }
    }

    @Test func noTemplateHasAnInlineScriptOrHandler() {
        for (name, source) in ConsoleTemplates.sources {
            let lower = source.lowercased()
            #expect(!lower.contains("<script>"), "\(name) has an inline script")
            #expect(!lower.contains("<style"), "\(name) has an inline style")
            #expect(lower.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil, "\(name) has an on… handler")
        }
    }

    @Test func untrustedTextIsEscapedInContentAndAttributes() {
        let templates = ConsoleTemplates()
        let html = templates.render(
            "list",
            [
                "title": hostile, "page": "devices", "path": "/devices", "noun": "x", "query": hostile, "csrf": "t",
                "operator": hostile, "role": "admin", "nav": [] as [Any], "columns": [hostile], "width": 1,
                "rows": [["cells": [["text": hostile, "href": "/modems/1"]]]],
            ]
        )
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("\"><img"))
        #expect(
            html.contains(
                "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&amp;"
            )
        )
    }

    @Test func everyPageRendersWithItsSharedHeaderAndFooter() {
        let templates = ConsoleTemplates()
        for name in ["signin", "modems", "modem", "bind", "batch", "list", "confirm", "message", "token"] {
            let html = templates.render(name, ["title": "T", "page": name, "csrf": "c", "version": "v"])
            #expect(html.hasPrefix("<!doctype html>"), "\(name)")
            #expect(html.contains("<script src=\"/static/console.js\" defer></script>"), "\(name)")
            #expect(html.hasSuffix("</html>"), "\(name)")
        }
    }

    @Test func everyInputSelectAndFileFieldHasALabel() throws {
        let templates = ConsoleTemplates()
        let pattern = try NSRegularExpression(pattern: #"<(input|select)\b[^>]*>"#)
        for name in ["signin", "bind", "batch", "list"] {
            let html = templates.render(
                name,
                ["title": "T", "page": name, "csrf": "c", "create": ["action": "/tokens"]]
            )
            let range = NSRange(html.startIndex..., in: html)
            for match in pattern.matches(in: html, range: range) {
                let tag = String(html[Range(match.range, in: html)!])
                if tag.contains("type=\"hidden\"") { continue }
                let id = tag.firstMatch(of: /id="([^"]+)"/)?.1
                #expect(id != nil, "\(name): \(tag) has no id")
                if let id { #expect(html.contains("<label for=\"\(id)\""), "\(name): no label for \(id)") }
            }
        }
    }
}
