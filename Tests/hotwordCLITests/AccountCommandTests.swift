import Foundation
import HotwordTestSupport
import Testing

@Suite("hotword login, logout and whoami")
struct AccountCommandTests {
    static let account = SUSITestServer.Account(login: "user@example.org", password: "pa55-w0rd-xyz",
                                                token: "tok-5f1d8e2c9a7b")

    @Test func loginKeepsAPrivateTokenThatWhoamiChecksAndLogoutForgets() async throws {
        let server = try SUSITestServer(account: Self.account)
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try susiConfig(in: folder, server: server)
        let tokenFile = folder.appendingPathComponent("state/susi-token.json")

        let login = try await HotwordBinary.run(["login", "--login", "user@example.org", "--config", config],
                                                input: Self.account.password + "\n")
        #expect(login.status == 0)
        #expect(login.stdout.hasPrefix("Logged in to \(server.baseURL.absoluteString) as user@example.org until "))
        let mode = try FileManager.default.attributesOfItem(atPath: tokenFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try String(contentsOf: tokenFile, encoding: .utf8).contains(Self.account.token))
        #expect(server.loginRequests.last?.query("password") == Self.account.password)

        let whoami = try await HotwordBinary.run(["whoami", "--config", config])
        #expect(whoami.status == 0)
        #expect(whoami.stdout.hasPrefix("user@example.org on \(server.baseURL.absoluteString), token valid until "))
        #expect(server.loginRequests.last?.query("checkLogin") == "true")
        #expect(server.loginRequests.last?.query("access_token") == Self.account.token)

        let logout = try await HotwordBinary.run(["logout", "--config", config])
        #expect(logout.status == 0)
        #expect(logout.stdout == "Logged out user@example.org (server: Logout successful).\n")
        #expect(server.loginRequests.last?.query("logout") == "true")
        #expect(server.loginRequests.last?.query("access_token") == Self.account.token)
        #expect(server.requests.allSatisfy { $0.query("delete") == nil })
        #expect(!FileManager.default.fileExists(atPath: tokenFile.path))

        let again = try await HotwordBinary.run(["whoami", "--config", config])
        #expect(again.status == 1)
        #expect(again.stderr == "Error: not logged in (`hotword login` logs in)\n")
        #expect(try await HotwordBinary.run(["logout", "--config", config]).stdout == "Not logged in.\n")
        for result in [login, whoami, logout, again] {
            #expect(!(result.stdout + result.stderr).contains(Self.account.token))
            #expect(!(result.stdout + result.stderr).contains(Self.account.password))
        }
    }

    @Test func askSendsTheTokenOfLoginUntilLogoutForgetsItAndThePulledSettings() async throws {
        let server = try SUSITestServer(account: Self.account)
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let anonymous = try susiConfig(in: folder, server: server)
        #expect(try await HotwordBinary.run(["login", "--login", Self.account.login, "--config", anonymous],
                                            input: Self.account.password + "\n").status == 0)
        #expect(try await HotwordBinary.run(["ask", "hi", "--config", anonymous]).status == 0)
        #expect(server.chatRequests.last?.query("access_token") == Self.account.token)

        // Naming the account without its password is the README's setup, and valid.
        let named = try susiConfig(in: folder, server: server, extra: "login = \"\(Self.account.login)\"")
        let check = try await HotwordBinary.run(["config", "check", named])
        #expect(check.status == 0, "\(check.stderr)")
        server.userSettings = ["prefLanguage": "de-DE"]
        #expect(try await HotwordBinary.run(["settings", "pull", "--config", named]).status == 0)
        #expect(try await HotwordBinary.run(["ask", "hallo", "--config", named]).status == 0)
        #expect(server.chatRequests.last?.query("access_token") == Self.account.token)
        #expect(server.chatRequests.last?.query("language") == "de")

        #expect(try await HotwordBinary.run(["logout", "--config", named]).status == 0)
        #expect(try await HotwordBinary.run(["ask", "hello", "--config", named]).status == 0)
        #expect(server.chatRequests.last?.query("access_token") == nil)
        #expect(server.chatRequests.last?.query("language") == "en")
    }

    @Test func aPasswordWithoutALoginIsNamedInConfigCheck() async throws {
        let server = try SUSITestServer(account: Self.account)
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try susiConfig(in: folder, server: server, extra: "password = \"\(Self.account.password)\"")
        let check = try await HotwordBinary.run(["config", "check", config])
        #expect(check.status == 78)
        #expect(check.stderr.hasSuffix(":4: susi.password = <redacted> is invalid: expected no password without a login (the account's e-mail address)\n"),
                "\(check.stderr)")
        #expect(!check.stderr.contains(Self.account.password))
    }

    @Test func aWrongPasswordStoresNothing() async throws {
        let server = try SUSITestServer(account: Self.account)
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try susiConfig(in: folder, server: server)
        let result = try await HotwordBinary.run(["login", "--login", "user@example.org", "--config", config], input: "guess\n")
        #expect(result.status == 1)
        #expect(result.stderr == "Error: SUSI login as user@example.org failed: HTTP 422: Error 422 Invalid credentials\n")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("state/susi-token.json").path))
        let empty = try await HotwordBinary.run(["login", "--login", "user@example.org", "--config", config], input: "")
        #expect(empty.status == 1)
        #expect(empty.stderr == "Error: no password on standard input\n")
    }

    @Test func anExpiredTokenIsReportedAndLogoutStillForgetsItWhenTheServerIsGone() async throws {
        let server = try SUSITestServer(account: Self.account)
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try susiConfig(in: folder, server: server)
        let tokenFile = folder.appendingPathComponent("state/susi-token.json")
        try FileManager.default.createDirectory(at: tokenFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        // A token the server no longer knows: SUSI treats its bearer as anonymous.
        try #"{"access_token": "tok-old", "expires": 1900000000, "login": "user@example.org", "server": "\#(server.baseURL.absoluteString)"}"#
            .write(to: tokenFile, atomically: true, encoding: .utf8)
        let whoami = try await HotwordBinary.run(["whoami", "--config", config])
        #expect(whoami.status == 1)
        #expect(whoami.stderr == "Error: the token of user@example.org on \(server.baseURL.absoluteString) is no longer valid (`hotword login` logs in again)\n")
        server.shutdown()
        let logout = try await HotwordBinary.run(["logout", "--config", config])
        #expect(logout.status == 0)
        #expect(logout.stdout == "Logged out user@example.org here.\n")
        #expect(logout.stderr.contains("(the server was not told: SUSI server unreachable"))
        #expect(!logout.stderr.contains("tok-old"))
        #expect(!FileManager.default.fileExists(atPath: tokenFile.path))
    }

    @Test func passwordIsCheckedLocallyThenChangedWithTheServersMessages() async throws {
        let account = SUSITestServer.Account(login: "user@example.org", password: "Old-pa55word", token: "tok-3e9a")
        let server = try SUSITestServer(account: account)
        defer { server.shutdown() }
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = try susiConfig(in: folder, server: server)
        let notLoggedIn = try await HotwordBinary.run(["password", "--config", config], input: "old\nNew-pa55word\n")
        #expect(notLoggedIn.status == 1)
        #expect(notLoggedIn.stderr == "Error: not logged in to SUSI (`hotword login` logs in)\n")
        _ = try await HotwordBinary.run(["login", "--login", account.login, "--config", config], input: account.password + "\n")

        let weak = try await HotwordBinary.run(["password", "--config", config], input: "\(account.password)\nweakpass\n")
        #expect(weak.status == 1)
        #expect(weak.stderr == "Error: SUSI refuses the new password: it needs a digit\n")
        #expect(server.requests.allSatisfy { $0.path != "/aaa/changepassword.json" })

        let wrong = try await HotwordBinary.run(["password", "--config", config], input: "guess\nNew-pa55word\n")
        #expect(wrong.stderr == "Error: SUSI refuses the new password: HTTP 422: Error 422 Invalid credentials\n")

        let same = try await HotwordBinary.run(["password", "--config", config], input: "\(account.password)\n\(account.password)\n")
        #expect(same.status == 1)
        #expect(same.stderr.hasSuffix("/aaa/changepassword.json?changepassword=user%40example.org&password=<redacted>&newpassword=<redacted>&access_token=<redacted>: Your current password matches new password.\n"))

        let changed = try await HotwordBinary.run(["password", "--config", config], input: "\(account.password)\nPa55-w0rd-xyz\n")
        #expect(changed.status == 0)
        #expect(changed.stdout == "Your password has been changed!\n")
        let request = try #require(server.requests.last)
        #expect(request.path == "/aaa/changepassword.json")
        #expect(request.query("changepassword") == account.login)
        #expect(request.query("password") == account.password)
        #expect(request.query("newpassword") == "Pa55-w0rd-xyz")
        #expect(request.query("access_token") == account.token)
        for result in [weak, wrong, same, changed] {
            #expect(!(result.stdout + result.stderr).contains(account.password))
            #expect(!(result.stdout + result.stderr).contains("Pa55-w0rd-xyz"))
        }
    }
}
