@testable import HotwordTOML
import Testing

@Suite("TOML parser")
struct TOMLParserTests {
    func parse(_ text: String) throws -> TOMLTable {
        try TOMLDocument(text).root
    }

    /// The syntax error of `text`, or nil when it parses.
    func syntaxError(_ text: String) -> TOMLSyntaxError? {
        do {
            _ = try TOMLDocument(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyKindOfValue() throws {
        let table = try parse(#"""
            basic = "tab\there \"quoted\" \\ \u00E9 \U0001F600"
            literal = 'C:\path\n'
            multi = """
            first
            joined \
               here ""quote"""""
            raw = '''
            it's ''two'' lines'''
            integers = [+17, -0, 1_000, 0xDEAD_beef, 0o755, 0b1101, 9223372036854775807, -9223372036854775808]
            floats = [1.5, -0.25, 5e+22, 1E-2, 6.626e-34, 224_617.445_991, inf, -inf]
            not_a_number = nan
            flags = [true, false]
            dates = [1979-05-27T07:32:00Z, 1979-05-27 00:32:00.999-07:00, 1979-05-27T07:32:00, 1979-05-27, 00:32:00.5, 2000-02-29]
            nested = [ [1, 2], ["a", 'b'], [], { x = 1 } ]
            inline = { name = "x", point.x = 1, point.y = 2 }
            "quoted key" = 1
            '' = 2
            """#)
        #expect(table["basic"] == .string("tab\there \"quoted\" \\ é 😀"))
        #expect(table["literal"] == .string(#"C:\path\n"#))
        #expect(table["multi"] == .string("first\njoined here \"\"quote\"\""))
        #expect(table["raw"] == .string("it's ''two'' lines"))
        #expect(table["integers"] == .array([17, 0, 1_000, 0xDEAD_BEEF, 0o755, 0b1101, .max, .min].map(TOMLValue.integer)))
        #expect(table["floats"] == .array([1.5, -0.25, 5e22, 0.01, 6.626e-34, 224_617.445_991, .infinity, -.infinity].map(TOMLValue.float)))
        #expect(table["not_a_number"]?.double?.isNaN == true)
        #expect(table["flags"] == .array([.boolean(true), .boolean(false)]))
        #expect(table["dates"] == .array(["1979-05-27T07:32:00Z", "1979-05-27 00:32:00.999-07:00", "1979-05-27T07:32:00",
                                          "1979-05-27", "00:32:00.5", "2000-02-29"].map(TOMLValue.dateTime)))
        #expect(table["nested"] == .array([.array([.integer(1), .integer(2)]), .array([.string("a"), .string("b")]), .array([]),
                                           .table(TOMLTable(entries: [("x", .integer(1))]))]))
        #expect(table["inline"] == .table(TOMLTable(entries: [
            ("name", .string("x")), ("point", .table(TOMLTable(entries: [("x", .integer(1)), ("y", .integer(2))]))),
        ])))
        #expect(table["quoted key"] == .integer(1) && table[""] == .integer(2))
    }

    @Test func tablesHeadersAndDottedKeysBuildOneTree() throws {
        let document = try TOMLDocument("""
            title = "t"   # a comment
            [a.b.c]
            x = 1
            [a]           # a super-table after its sub-table
            b.d = 2       # a dotted key into the implicitly created a.b
            [[servers]]
            name = "alpha"
            [servers.port]
            number = 1
            [[servers]]
            name = "beta"
            [ "quoted" . 'key' ]
            y = 3
            """)
        let root = document.root
        #expect(root.entries.map(\.key) == ["title", "a", "servers", "quoted"])
        #expect(root["a"]?.table?["b"]?.table?["c"]?.table?["x"] == .integer(1))
        #expect(root["a"]?.table?["b"]?.table?["d"] == .integer(2))
        let servers = root["servers"]?.array?.compactMap(\.table)
        #expect(servers?.count == 2)
        #expect(servers?.first?["port"]?.table?["number"] == .integer(1))
        #expect(servers?.last?["name"] == .string("beta"))
        #expect(root["quoted"]?.table?["key"]?.table?["y"] == .integer(3))
        #expect(document.line(of: ["a", "b", "c"]) == 2)
        #expect(document.line(of: ["a", "b", "d"]) == 5)
        #expect(document.line(of: ["servers"]) == 6)
        #expect(document.line(of: ["servers", "name"]) == 7)
        #expect(document.line(of: ["quoted", "key", "y"]) == 13)
        #expect(document.line(of: ["nothing"]) == nil)
    }

    @Test func lineEndingsAndAByteOrderMarkAreAccepted() throws {
        let table = try parse("\u{FEFF}a = 1\r\nb = \"\"\"\r\nx\r\n\"\"\"\r\n")
        #expect(table["a"] == .integer(1))
        #expect(table["b"] == .string("x\n"))
    }

    /// Each invalid document with the line of its error and what the message says.
    @Test(arguments: [
        // toml++ (through TOMLKit) aborted the whole program on these; found by the fuzzer.
        ("[!]", 1, "expected a key"),
        ("a = 1\n[ =]", 2, "expected a key"),
        ("[[#]]", 1, "expected a key"),
        ("a = 1\na = 2", 2, "defined twice"),
        ("[a]\n[a]", 2, "defined twice"),
        ("[a]\nb.c = 1\n[a.b]", 3, "defined twice"),
        ("[a.b]\nx = 1\n[a]\nb.y = 2", 4, "defined elsewhere"),
        ("a = { b = 1 }\n[a]", 2, "already has a value"),
        ("a = { b = 1 }\na.c = 2", 2, "already has a value"),
        ("a = []\n[[a]]", 2, "not an array of tables"),
        ("[[a]]\n[a]", 2, "array of tables"),
        ("a = \"x\u{01}\"", 1, "control character U+0001"),
        ("# comment \u{7F}", 1, "control character U+007F"),
        ("a = \"\\q\"", 1, "invalid escape"),
        ("a = \"\\uD800\"", 1, "invalid Unicode escape"),
        ("a = \"open", 1, "not closed"),
        ("a = \"line\nbreak\"", 1, "must end on the line"),
        ("a = '''never closed", 1, "not closed"),
        ("a = 1\rb = 2", 1, "carriage return"),
        ("a 1", 1, "expected '='"),
        ("a = 1 b = 2", 1, "end of the line"),
        ("a = 012", 1, "not a number"),
        ("a = 1__0", 1, "not a number"),
        ("a = _1", 1, "not a number"),
        ("a = 1.", 1, "not a number"),
        ("a = .5", 1, "not a number"),
        ("a = +0x10", 1, "not a number"),
        ("a = 9223372036854775808", 1, "not a number"),
        ("a = 1e400", 1, "not a number"),
        ("a = hello", 1, "text needs quotes"),
        ("a = 2021-02-29", 1, "not a valid date"),
        ("a = 24:00:00", 1, "not a valid date"),
        ("a = 1979-05-27T07:32:00+25:00", 1, "not a valid date"),
        ("a = 07:32:00Z", 1, "not a valid date"),
        ("a = { b = 1,\n c = 2 }", 1, "expected a key"),
        ("a = { b = 1, }", 1, "expected a key"),
        ("a = [1 2]", 1, "expected ',' or ']'"),
        ("\"\"\"key\"\"\" = 1", 1, "multi-line string"),
        ("a = " + String(repeating: "[", count: 200), 1, "nested more than 100"),
        ("a = " + String(repeating: "{b=", count: 200), 1, "nested more than 100"),
    ])
    func invalidDocumentsNameTheLine(text: String, line: Int, message: String) {
        let error = syntaxError(text)
        #expect(error?.line == line, "\(String(describing: error))")
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }

    /// A table header of 45,000 parts crashed `config check` on the stack; a dotted key of 4,000
    /// took 4 s. Key parts count towards the nesting limit, with arrays and inline tables.
    @Test func longDottedKeysAndHeadersAreNestingErrors() throws {
        func key(_ part: String, _ count: Int) -> String { Array(repeating: part, count: count).joined(separator: ".") }
        let cases: [(text: String, line: Int)] = [
            ("[\(key("a", 45_000))]", 1),
            ("\(key("a", 4_000)) = 1", 1),
            ("[\(key("a", 60))]\n\(key("b", 60)) = 1", 2),
            ("a = " + String(repeating: "{b.c.d.e=", count: 30), 1),
        ]
        for (text, line) in cases {
            let error = syntaxError(text)
            #expect(error?.line == line && error?.message.contains("nested more than 100") == true, "\(String(describing: error))")
        }
        #expect(syntaxError("[\(key("a", 50))]\n\(key("b", 50)) = 1") == nil)
    }

    @Test func columnsCountCharacters() {
        #expect(syntaxError("\"é\" = 1\nkey = \"x\" y") == TOMLSyntaxError(
            line: 2, column: 11, message: "expected the end of the line (one key = value or [table] per line)"))
        #expect(syntaxError("\"é\" = \"\\q\"")?.column == 8)  // at the backslash
    }

    @Test func valuesAreWrittenBackAsTOML() {
        #expect(TOMLValue.string("a \"b\"\n\u{01}").tomlText == #""a \"b\"\n\u0001""#)
        #expect(TOMLValue.array([.integer(-1), .float(2), .float(.nan), .float(-.infinity), .boolean(true)]).tomlText
                == "[-1, 2.0, nan, -inf, true]")
        #expect(TOMLValue.table(TOMLTable(entries: [])).tomlText == "{…}")
        #expect(TOMLValue.dateTime("1979-05-27").tomlText == "1979-05-27")
    }
}
