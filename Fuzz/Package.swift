// swift-tools-version:6.1
// libFuzzer targets for hotword's parsers of untrusted bytes. A package of its own, so the main
// package's `swift build` and `swift test` never see an executable without `main`: build and run
// these only through scripts/fuzz.sh (release, -sanitize=fuzzer,address). See docs/fuzzing.md.
import PackageDescription

let package = Package(
    name: "hotword-fuzz",
    dependencies: [.package(name: "hotword", path: "..")],
    targets: [
        // libFuzzer's driver entry (a header only; -sanitize=fuzzer links the runtime).
        .systemLibrary(name: "CLibFuzzer"),
        // Starts libFuzzer from a target's main.swift (see Fuzzer.swift for why not libFuzzer's main).
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"]),
        // Each target's main.swift defines LLVMFuzzerTestOneInput and hands it to runFuzzer.
        // Model file bytes → KeywordModel (ModelFile.decode), then a detector run on the model.
        .executableTarget(name: "FuzzModelFile", dependencies: ["FuzzSupport", "CLibFuzzer", .product(name: "HotwordCore", package: "hotword")]),
        // Audio file bytes → 16 kHz mono samples (AudioFileReader via libsndfile and libsamplerate).
        .executableTarget(name: "FuzzAudioFile", dependencies: ["FuzzSupport", .product(name: "HotwordAudio", package: "hotword")]),
        // hotword.toml text → AssistantConfiguration or ConfigErrors (ConfigurationLoader and its TOML parser).
        .executableTarget(name: "FuzzConfiguration", dependencies: ["FuzzSupport", .product(name: "HotwordAssistant", package: "hotword")]),
        // A /susi/chat.json body → SUSIReply or SUSIError, then the steps that present it (SUSIRenderer).
        .executableTarget(name: "FuzzSUSIReply", dependencies: ["FuzzSupport", .product(name: "HotwordSUSI", package: "hotword")]),
        // Bytes on a Wyoming connection → events (WyomingEventParser) → a wake-word session's replies.
        .executableTarget(name: "FuzzWyoming", dependencies: [
            "FuzzSupport", .product(name: "HotwordCore", package: "hotword"), .product(name: "HotwordWyoming", package: "hotword"),
        ]),
    ]
)
