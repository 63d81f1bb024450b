// swift-tools-version:6.1
// hotword — an offline wake-word daemon. Data flows one way:
//   audio in (HotwordAudio) → hearing: features → model → detector, voice activity, utterances (HotwordCore)
//   → events → assistant (HotwordAssistant)
//   → SUSI.AI (HotwordSUSI); the assistant (and `ask`) record into the history (HotwordHistory),
//   which the command line reads.
// HotwordCore does no I/O; C libraries enter only through the small C* system-library targets.
import PackageDescription

/// A C library from Debian, found with pkg-config; `apt` names the package that provides it.
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
/// Declared by every target that imports it (not reached through another module's dependency).
let atomics = Target.Dependency.product(name: "Atomics", package: "swift-atomics")
// The DSP, networks and training are optimised in debug builds too: the test suite runs them
// over minutes of audio and dozens of small trainings, 10–50 times slower unoptimised.
let optimisedEvenInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "hotword",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hotword", targets: ["hotword"]),
        .library(name: "HotwordCore", targets: ["HotwordCore"]),
        // For the fuzz targets in Fuzz/, a separate package that depends on this one by path.
        .library(name: "HotwordAudio", targets: ["HotwordAudio"]),
        .library(name: "HotwordTOML", targets: ["HotwordTOML"]),
        .library(name: "HotwordAssistant", targets: ["HotwordAssistant"]),
        .library(name: "HotwordSUSI", targets: ["HotwordSUSI"]),
        .library(name: "HotwordWyoming", targets: ["HotwordWyoming"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.2.0"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // C libraries (Debian packages in parentheses)
        systemLibrary("CALSA", pkgConfig: "alsa", apt: "libasound2-dev"),
        systemLibrary("CFFTW", pkgConfig: "fftw3f", apt: "libfftw3-dev"),
        systemLibrary("CSndFile", pkgConfig: "sndfile", apt: "libsndfile1-dev"),
        systemLibrary("CSampleRate", pkgConfig: "samplerate", apt: "libsamplerate0-dev"),
        systemLibrary("CCurl", pkgConfig: "libcurl", apt: "libcurl4-openssl-dev"),
        systemLibrary("CPocketSphinx", pkgConfig: "pocketsphinx", apt: "libpocketsphinx-dev"),
        systemLibrary("CEspeakNG", pkgConfig: "espeak-ng", apt: "libespeak-ng-dev"),
        systemLibrary("CBLAS", pkgConfig: "openblas", apt: "libopenblas-dev"),
        systemLibrary("CArchive", pkgConfig: "libarchive", apt: "libarchive-dev"),
        systemLibrary("CCrypto", pkgConfig: "libcrypto", apt: "libssl-dev"),
        // glibc's allocator settings (part of libc: no package).
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),

        // Features, model, detector, and hearing (detector, voice activity and utterances over a
        // stream of sample positions): pure computation, no I/O.
        // Vector maths on SIMD8<Float> (exp, ln, erf within a few ulp of libm), inlined into the
        // hot loops of the feature front end and Whisper.
        .target(name: "HotwordSIMD", swiftSettings: optimisedEvenInDebug),
        .target(name: "HotwordCore", dependencies: ["CFFTW", "CBLAS", "HotwordJSON", "HotwordSIMD"], swiftSettings: optimisedEvenInDebug),
        // Whisper speech recognition in Swift: the CTranslate2 model file, the log-mel front end,
        // encoder, greedy decoder and tokenizer. Pure computation over OpenBLAS, no I/O but the model folder.
        .target(name: "HotwordWhisper", dependencies: ["CBLAS", "HotwordSIMD"], swiftSettings: optimisedEvenInDebug),
        // Model files: load, save atomically, find the bundled models by name.
        .target(name: "HotwordModels", dependencies: ["HotwordCore", "HotwordFolders"]),
        // Audio in and out: files, resampling, ring buffer, ALSA.
        .target(name: "HotwordAudio", dependencies: [
            "HotwordCore", "CALSA", "CSndFile", "CSampleRate", atomics, logging,
        ]),
        // When pocketsphinx spots a phrase: pronunciations (CMU dictionary, espeak-ng) and the one
        // rule both the training check (pocketsphinx_batch) and the run-time spotter (libpocketsphinx) apply.
        .target(name: "HotwordSpotting", dependencies: ["HotwordCore", "HotwordChildProcess", logging]),
        // Data synthesis, augmentation, training, evaluation and tuning.
        .target(name: "HotwordTraining", dependencies: [
            "HotwordCore", "HotwordModels", "HotwordAudio", "HotwordChildProcess", "HotwordSpotting", "HotwordJSON", "CBLAS", logging,
        ], swiftSettings: optimisedEvenInDebug),
        // The Wyoming protocol (Home Assistant, Rhasspy): event framing, per-connection wake-word
        // sessions (pure: events in, events out), and a thin POSIX socket server.
        .target(name: "HotwordWyoming", dependencies: ["HotwordCore", "HotwordModels", "HotwordAudio", "HotwordChildProcess", "HotwordJSON", logging]),
        // Scoring speech to text: one normalisation of transcripts, word alignment and error rates,
        // reference lists (file<TAB>text). Pure, no I/O.
        .target(name: "HotwordTranscripts"),
        // Language models for pocketsphinx: n-gram counts, Witten–Bell smoothing, ARPA text, and
        // the built-in question forms of the question model. Pure, no I/O.
        .target(name: "HotwordLanguageModel", dependencies: ["HotwordTranscripts"]),
        // Starting programs: posix_spawn, no shell, a process group of their own, files for streams.
        .target(name: "HotwordChildProcess"),
        // JSON text written by hand (events, reports, values shown in tables): one string escaper.
        .target(name: "HotwordJSON"),
        // Where every file hotword keeps for a user goes: the XDG base directories, systemd's folders.
        .target(name: "HotwordFolders"),
        // hotword.toml's syntax: a TOML parser that keeps every key's line. No C library, so the
        // configuration fuzz target links it alone.
        .target(name: "HotwordTOML", dependencies: ["HotwordJSON"]),
        // The SUSI.AI client (chat, skills, account) and the HTTP layer it talks through (libcurl).
        .target(name: "HotwordSUSI", dependencies: ["HotwordJSON", "HotwordFolders", "CCurl", "CCrypto", logging]),
        // The conversation history and pending scheduled answers: SQLite (WAL) through GRDB.
        // The assistant and `ask` write into it; the command line reads it.
        .target(name: "HotwordHistory", dependencies: ["HotwordFolders", .product(name: "GRDB", package: "GRDB.swift")]),
        // The voice assistant, a folder per concern: listen loop, conversation, sound output, speech
        // to text, phrase spotting, text to speech, the engines both use, configuration, systemd service.
        .target(name: "HotwordAssistant", dependencies: [
            "HotwordCore", "HotwordModels", "HotwordAudio", "HotwordWyoming", "HotwordSUSI", "HotwordJSON", "HotwordTOML", "HotwordHistory",
            "HotwordFolders", "HotwordChildProcess", "HotwordSpotting", "HotwordTranscripts", "HotwordLanguageModel", "HotwordWhisper", "CPocketSphinx", "CEspeakNG", "CMalloc", atomics, logging,
        ]),
        // Public training corpora: the catalogue, downloads resumed and verified (over HotwordSUSI's
        // HTTP client), archives unpacked into the folders `train` reads.
        .target(name: "HotwordData", dependencies: [
            "HotwordModels", "HotwordAudio", "HotwordSUSI", "CArchive", "CCrypto", logging,
        ]),
        // The command-line tool: thin commands over the modules above.
        .executableTarget(name: "hotword", dependencies: [
            "HotwordCore", "HotwordModels", "HotwordAudio", "HotwordTraining", "HotwordAssistant", "HotwordWyoming",
            "HotwordSUSI", "HotwordJSON", "HotwordHistory", "HotwordData", "HotwordSpotting", "HotwordTranscripts",
            .product(name: "ArgumentParser", package: "swift-argument-parser"), logging,
        ]),

        // Shared by the test targets: paths to ../shared, temporary folders, ALSA file-plugin devices,
        // HTTP servers, archives laid out as the public corpora are.
        .target(name: "HotwordTestSupport", dependencies: ["HotwordCore", "HotwordAudio", logging], path: "Tests/HotwordTestSupport"),
        .testTarget(name: "HotwordCoreTests", dependencies: ["HotwordCore", "HotwordSIMD", "HotwordModels", "HotwordAudio", "HotwordTestSupport"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "HotwordAudioTests", dependencies: ["HotwordAudio", "HotwordCore", "HotwordTestSupport"]),
        .testTarget(name: "HotwordTrainingTests", dependencies: ["HotwordTraining", "HotwordSpotting", "HotwordTestSupport"]),
        .testTarget(name: "HotwordAssistantTests", dependencies: ["HotwordAssistant", "HotwordSUSI", "HotwordAudio", "HotwordWyoming",
                                                           "HotwordTOML", "HotwordJSON", "HotwordChildProcess", "HotwordSpotting",
                                                           "HotwordTraining", "HotwordFolders", "HotwordTranscripts", "HotwordTestSupport", atomics, logging]),
        .testTarget(name: "HotwordTranscriptsTests", dependencies: ["HotwordTranscripts"]),
        .testTarget(name: "HotwordWhisperTests", dependencies: ["HotwordWhisper", "HotwordAudio", "HotwordTranscripts", "HotwordTestSupport"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "HotwordLanguageModelTests", dependencies: ["HotwordLanguageModel"]),
        .testTarget(name: "HotwordSUSITests", dependencies: ["HotwordSUSI", "HotwordTestSupport", logging]),
        .testTarget(name: "HotwordHistoryTests", dependencies: ["HotwordHistory", "HotwordTestSupport", "hotword-history-writer",
                                                         .product(name: "GRDB", package: "GRDB.swift")]),
        // Records exchanges until killed: the history tests kill it mid-write. Not shipped.
        .executableTarget(name: "hotword-history-writer", dependencies: ["HotwordHistory"], path: "Tests/HistoryWriter"),
        .testTarget(name: "HotwordDataTests", dependencies: ["HotwordData", "HotwordSUSI", "HotwordAudio", "HotwordTestSupport"]),
        .testTarget(name: "HotwordWyomingTests", dependencies: ["HotwordWyoming", "HotwordCore", "HotwordModels", "HotwordAudio", "HotwordTestSupport", logging]),
        .testTarget(name: "hotwordCLITests", dependencies: ["hotword", "HotwordCore", "HotwordAudio", "HotwordModels", "HotwordTestSupport"]),
        // The soak test (scripts/soak.sh): hours of audio through `hotword run`. Not shipped.
        .executableTarget(name: "hotword-soak", dependencies: [
            "HotwordCore", "HotwordModels", "HotwordAudio", "HotwordTraining", "HotwordAssistant", "HotwordTestSupport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"), atomics,
        ], path: "Tests/HotwordSoak"),
    ]
)
