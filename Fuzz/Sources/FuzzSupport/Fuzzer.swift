import CLibFuzzer
import Foundation

/// Hands the process to libFuzzer with `testOneInput` (a target's `LLVMFuzzerTestOneInput`) and
/// the command line's libFuzzer options and corpus folders; exits with libFuzzer's status.
///
/// SwiftPM links a Linux executable target by aliasing `main` to the module's own entry point,
/// so a target cannot simply leave `main` to libFuzzer's runtime; it calls the driver instead,
/// which lives in another member of the runtime archive than libFuzzer's `main`.
public func runFuzzer(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}

/// The input as bytes; libFuzzer passes a null pointer for the empty input.
public func fuzzInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: start, count: start == nil ? 0 : count)
}
