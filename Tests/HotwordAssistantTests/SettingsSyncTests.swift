import Foundation
import HotwordAssistant
import Testing

@Suite("SUSI account settings onto hotword's keys and back")
struct SettingsSyncTests {
    private func keys(_ settings: [String: String]) -> [String] {
        SettingsSync.local(from: settings).keys.map { "\($0.key) = \($0.value)" }
    }

    @Test func everySettingSUSIsClientsUseHasItsKey() {
        #expect(keys(["prefLanguage": "pt_BR", "speechOutput": "False", "speechOutputAlways": "true", "ttsLanguage": "en-GB",
                      "speechRate": "0.8", "speechPitch": "1.5"]) == [
            #"susi.language = "pt""#, #"tts.backend = "none""#, "tts.speak_always = true", #"tts.espeak.voice = "en-gb""#,
            "tts.espeak.rate = 140", "tts.espeak.pitch = 75",
        ])
        #expect(keys(["speechOutput": "true", "ttsLanguage": "de-DE", "theme": "dark", "server": "https://x"])
                == [#"tts.espeak.voice = "de""#])
    }

    @Test func valuesOutOfRangeAreClampedAndNonsenseIsNamed() {
        #expect(keys(["speechRate": "4", "speechPitch": "0.01"]) == ["tts.espeak.rate = 450", "tts.espeak.pitch = 1"])
        let pulled = SettingsSync.local(from: ["speechRate": "-1", "prefLanguage": "Deutsch!", "speechOutput": "yes", "ttsLanguage": "1"])
        #expect(pulled.keys.isEmpty)
        #expect(Set(pulled.unusable) == ["speechRate = -1", "prefLanguage = Deutsch!", "speechOutput = yes", "ttsLanguage = 1"])
    }

    @Test func hotwordsSettingsGoUpAsSUSIsClientsSpellThem() {
        var configuration = AssistantConfiguration(clientVersion: "test")
        #expect(SettingsSync.susi(from: configuration) == [
            "speechOutput": "true", "speechOutputAlways": "false", "speechRate": "1.00", "speechPitch": "1.00",
            "prefLanguage": "en", "ttsLanguage": "en-us",
        ])
        configuration.tts.backend = .none
        configuration.tts.espeak.rate = 210
        #expect(SettingsSync.susi(from: configuration)["speechOutput"] == "false")
        #expect(SettingsSync.susi(from: configuration)["speechRate"] == "1.20")
    }

    @Test func thePulledFileIsTOMLWithOneTablePerSection() {
        let pulled = SettingsSync.local(from: ["prefLanguage": "de", "speechRate": "1.2", "ttsLanguage": "de"])
        let text = pulled.toml(account: "user@example.org", at: Date(timeIntervalSince1970: 0))
        #expect(text.hasSuffix("""

            [susi]
            language = "de"

            [tts.espeak]
            voice = "de"
            rate = 210

            """))
        #expect(text.hasPrefix("# The SUSI account settings of user@example.org, pulled 1970-01-01T00:00:00Z."))
    }
}
