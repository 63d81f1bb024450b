import Dispatch
import Foundation
import HotwordAudio
import HotwordCore

/// A microphone opened by a command that records (`record`, `enroll`): a device that cannot be
/// opened is reported with how to choose another, and Ctrl-C closes the device, which ends a
/// blocked read with what it has, instead of ending the program.
final class InterruptibleCapture {
    let capture: CaptureDevice
    private let interrupt: DispatchSourceSignal

    init(device: String, sampleRate: Int = AudioFormat.sampleRate) throws {
        let capture: CaptureDevice
        do {
            capture = try CaptureDevice(CaptureConfiguration(device: device, sampleRate: sampleRate))
        } catch {
            throw CommandFailure.device(error, choose: "--device NAME")
        }
        self.capture = capture
        signal(SIGINT, SIG_IGN)
        interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { capture.close() }
        interrupt.resume()
    }

    /// Closes the device and gives Ctrl-C back its usual meaning.
    func close() {
        interrupt.cancel()
        signal(SIGINT, SIG_DFL)
        capture.close()
    }
}
