import HotwordSUSI
import Testing

@Suite("SUSI password policy")
struct SUSIPasswordPolicyTests {
    @Test(arguments: [
        ("Sh0rt!", "it must be 8 to 64 characters long"),
        ("A1!" + String(repeating: "x", count: 62), "it must be 8 to 64 characters long"),
        ("NoDigits!!", "it needs a digit"),
        ("no-upper-1", "it needs an upper-case letter (A-Z)"),
        ("Ünicode1!", "it needs an upper-case letter (A-Z)"),
        ("Letters123", "it needs a character other than a letter, digit or _"),
        ("Under_score1", "it needs a character other than a letter, digit or _"),
        ("Line\nBreak1!", "it must not contain a line break"),
    ])
    func weakPasswordsAreRefusedWithTheReason(password: String, reason: String) {
        #expect(SUSIPasswordPolicy.problem(with: password, login: "user@example.org") == reason)
    }

    @Test func theServersExamplesOfGoodPasswordsPass() {
        for password in ["Corr3ct-horse", "A1!aaaaa", "A1!" + String(repeating: "x", count: 61), "Grüße-2024"] {
            #expect(SUSIPasswordPolicy.problem(with: password, login: "user@example.org") == nil, "\(password)")
        }
        // Java's \W is ASCII-only: a non-ASCII letter counts as the special character.
        #expect(SUSIPasswordPolicy.problem(with: "Grusse2024é", login: "x@y.z") == nil)
        #expect(SUSIPasswordPolicy.problem(with: "User1@Example.org", login: "User1@Example.org") == "it must differ from the e-mail address")
    }
}
