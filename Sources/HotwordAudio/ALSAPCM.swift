import CALSA
#if canImport(Glibc)
import Glibc
#endif

/// One open, configured, non-blocking ALSA PCM. Non-blocking so that waiting happens in our own
/// `poll`, which also watches a wakeup descriptor: that is how `close()` and `stop()` reach a
/// thread that waits for audio. Not thread-safe; its owner serialises access.
final class ALSAPCM {
    let handle: OpaquePointer
    let format: AudioStreamFormat
    /// ALSA's descriptors followed by the wakeup descriptor.
    private let descriptors: UnsafeMutableBufferPointer<pollfd>
    private let alsaDescriptorCount: Int32

    /// What `wait` saw.
    enum WaitResult {
        /// The device may accept or deliver frames now.
        case ready
        /// The wakeup descriptor fired.
        case woken
        /// The device reported an error condition; the code says which (-EPIPE, -ESTRPIPE, -ENODEV, -EIO).
        case failed(Int32)
        /// Nothing happened for `stallTimeout`: a running device that neither delivers nor
        /// consumes (a USB device wedged without reporting an error).
        case stalled
    }

    /// Several buffers' worth, and never under two seconds: a healthy device wakes us once per period.
    var stallTimeout: Duration {
        max(.seconds(2), .milliseconds(4 * format.bufferFrames * 1000 / format.sampleRate))
    }

    /// Opens `name` and negotiates the nearest configuration to `request`.
    init(name: String, direction: AudioDirection, request: ALSAStreamRequest, wakeup: ALSAWakeup) throws(AudioDeviceError) {
        ALSAMessages.route()
        var opened: OpaquePointer?
        let stream = direction == .capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK
        let code = snd_pcm_open(&opened, name, stream, SND_PCM_NONBLOCK)
        guard code >= 0, let handle = opened else {
            throw .cannotOpen(device: name, direction: direction, code: code, reason: alsaErrorText(code))
        }
        do throws(AudioDeviceError) {
            format = try Self.negotiate(handle, name: name, direction: direction, request: request)
        } catch {
            snd_pcm_close(handle)
            throw error
        }
        self.handle = handle
        let count = max(0, snd_pcm_poll_descriptors_count(handle))
        alsaDescriptorCount = count
        descriptors = .allocate(capacity: Int(count) + 1)
        descriptors.initialize(repeating: pollfd(fd: -1, events: 0, revents: 0))
        _ = snd_pcm_poll_descriptors(handle, descriptors.baseAddress, UInt32(count))
        descriptors[Int(count)] = pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0)
    }

    /// Discards pending frames and closes the device.
    deinit {
        snd_pcm_drop(handle)
        snd_pcm_close(handle)
        descriptors.deallocate()
    }

    /// Blocks until the device is ready for I/O, the wakeup fires, or the device fails or stalls.
    func wait() -> WaitResult {
        let timeout = stallTimeout.components.seconds * 1000 + stallTimeout.components.attoseconds / 1_000_000_000_000_000
        let result = poll(descriptors.baseAddress, nfds_t(descriptors.count), Int32(clamping: timeout))
        if result == 0 { return .stalled }
        if result < 0 { return .ready }  // EINTR: the caller simply tries its I/O again
        if descriptors[Int(alsaDescriptorCount)].revents != 0 { return .woken }
        var events: UInt16 = 0
        let code = snd_pcm_poll_descriptors_revents(handle, descriptors.baseAddress, UInt32(alsaDescriptorCount), &events)
        if code < 0 { return .failed(code) }
        if Int32(events) & (POLLERR | POLLHUP | POLLNVAL) != 0 {
            // Without this the caller would spin: poll keeps reporting the error while I/O says "try again".
            switch snd_pcm_state(handle) {
            case SND_PCM_STATE_XRUN: return .failed(-EPIPE)
            case SND_PCM_STATE_SUSPENDED: return .failed(-ESTRPIPE)
            case SND_PCM_STATE_DISCONNECTED: return .failed(-ENODEV)
            default: return .failed(-EIO)
            }
        }
        return .ready
    }

    /// Sets up hardware and software parameters; returns what the device agreed to.
    private static func negotiate(_ pcm: OpaquePointer, name: String, direction: AudioDirection,
                                  request: ALSAStreamRequest) throws(AudioDeviceError) -> AudioStreamFormat {
        func unsupported(_ what: String, _ code: Int32) -> AudioDeviceError {
            .unsupported(device: name, direction: direction, what: what, reason: alsaErrorText(code))
        }
        func check(_ code: Int32, _ step: String) throws(AudioDeviceError) {
            if code < 0 { throw .cannotConfigure(device: name, direction: direction, step: step, reason: alsaErrorText(code)) }
        }
        try request.checkRateAndChannels(device: name, direction: direction)

        var hardware: OpaquePointer?
        try check(snd_pcm_hw_params_malloc(&hardware), "snd_pcm_hw_params_malloc")
        defer { snd_pcm_hw_params_free(hardware) }
        try check(snd_pcm_hw_params_any(pcm, hardware), "snd_pcm_hw_params_any")
        // Let the device show its real rates: libsamplerate's sinc filter beats the linear
        // interpolation alsa-lib's plug layer would otherwise apply. A device that cannot turn its
        // resampling off keeps it, which is harmless.
        _ = snd_pcm_hw_params_set_rate_resample(pcm, hardware, 0)

        let access = snd_pcm_hw_params_set_access(pcm, hardware, SND_PCM_ACCESS_RW_INTERLEAVED)
        if access < 0 { throw unsupported("interleaved read/write access", access) }

        let candidates = [request.sampleFormat] + AudioSampleFormat.allCases.filter { $0 != request.sampleFormat }
        guard let sampleFormat = candidates.first(where: { snd_pcm_hw_params_test_format(pcm, hardware, $0.alsaFormat) == 0 }) else {
            throw unsupported("any of the sample formats " + candidates.map(\.rawValue).joined(separator: ", "), -EINVAL)
        }
        try check(snd_pcm_hw_params_set_format(pcm, hardware, sampleFormat.alsaFormat), "snd_pcm_hw_params_set_format")

        var channels = UInt32(clamping: request.channels)
        if snd_pcm_hw_params_test_channels(pcm, hardware, channels) == 0 {
            try check(snd_pcm_hw_params_set_channels(pcm, hardware, channels), "snd_pcm_hw_params_set_channels")
        } else {
            let code = snd_pcm_hw_params_set_channels_first(pcm, hardware, &channels)
            if code < 0 { throw unsupported("any channel count", code) }
        }

        var rate = UInt32(clamping: request.sampleRate)
        var rounding = Int32(0)  // ALSA reports whether it rounded down or up; we only need the result
        let rateCode = snd_pcm_hw_params_set_rate_near(pcm, hardware, &rate, &rounding)
        if rateCode < 0 { throw unsupported("a sample rate near \(request.sampleRate) Hz", rateCode) }

        let (periodRequest, bufferRequest) = try request.frames(atRate: Int(rate), device: name, direction: direction)
        var period = snd_pcm_uframes_t(periodRequest)
        try check(snd_pcm_hw_params_set_period_size_near(pcm, hardware, &period, &rounding), "snd_pcm_hw_params_set_period_size_near")
        var buffer = snd_pcm_uframes_t(bufferRequest)
        try check(snd_pcm_hw_params_set_buffer_size_near(pcm, hardware, &buffer), "snd_pcm_hw_params_set_buffer_size_near")
        try check(snd_pcm_hw_params(pcm, hardware), "snd_pcm_hw_params")
        try check(snd_pcm_hw_params_get_period_size(hardware, &period, &rounding), "snd_pcm_hw_params_get_period_size")
        try check(snd_pcm_hw_params_get_buffer_size(hardware, &buffer), "snd_pcm_hw_params_get_buffer_size")

        var software: OpaquePointer?
        try check(snd_pcm_sw_params_malloc(&software), "snd_pcm_sw_params_malloc")
        defer { snd_pcm_sw_params_free(software) }
        try check(snd_pcm_sw_params_current(pcm, software), "snd_pcm_sw_params_current")
        try check(snd_pcm_sw_params_set_avail_min(pcm, software, period), "snd_pcm_sw_params_set_avail_min")
        // Capture starts with the first read; playback as soon as one period is queued, so a
        // short sound does not sit silent in the buffer waiting for it to fill.
        let startThreshold: snd_pcm_uframes_t = direction == .capture ? 1 : period
        try check(snd_pcm_sw_params_set_start_threshold(pcm, software, startThreshold), "snd_pcm_sw_params_set_start_threshold")
        try check(snd_pcm_sw_params(pcm, software), "snd_pcm_sw_params")

        return AudioStreamFormat(sampleFormat: sampleFormat, sampleRate: Int(rate), channels: Int(channels),
                                 periodFrames: Int(period), bufferFrames: Int(buffer))
    }
}
