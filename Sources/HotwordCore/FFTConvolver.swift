import CFFTW

/// Linear convolution by FFT (y = x ∗ h, length n + m − 1), for reverberating audio with room
/// impulse responses seconds long, where direct convolution would be thousands of times slower.
/// Keeps plans and aligned buffers for the last transform size; one instance per thread.
public final class FFTConvolver {
    private var size = 0
    private var real: UnsafeMutablePointer<Float>?
    private var spectrumA: UnsafeMutablePointer<fftwf_complex>?
    private var spectrumB: UnsafeMutablePointer<fftwf_complex>?
    private var forward: OpaquePointer?
    private var inverse: OpaquePointer?

    public init() {}

    deinit { release() }

    public func convolve(_ signal: [Float], with response: [Float]) -> [Float] {
        guard !signal.isEmpty, !response.isEmpty else { return [] }
        let length = signal.count + response.count - 1
        prepare(size: Self.powerOfTwo(atLeast: length))
        let bins = size / 2 + 1
        transform(signal, into: spectrumA!)
        transform(response, into: spectrumB!)
        let a = UnsafeMutableRawPointer(spectrumA!).assumingMemoryBound(to: Float.self)
        let b = UnsafeMutableRawPointer(spectrumB!).assumingMemoryBound(to: Float.self)
        let scale = 1 / Float(size)  // FFTW's inverse is unnormalised
        for k in 0..<bins {
            let (ar, ai, br, bi) = (a[2 * k], a[2 * k + 1], b[2 * k], b[2 * k + 1])
            a[2 * k] = (ar * br - ai * bi) * scale
            a[2 * k + 1] = (ar * bi + ai * br) * scale
        }
        fftwf_execute_dft_c2r(inverse, spectrumA, real)
        return Array(UnsafeBufferPointer(start: real, count: length))
    }

    private func transform(_ values: [Float], into spectrum: UnsafeMutablePointer<fftwf_complex>) {
        let real = real!
        values.withUnsafeBufferPointer { real.update(from: $0.baseAddress!, count: values.count) }
        (real + values.count).update(repeating: 0, count: size - values.count)
        fftwf_execute_dft_r2c(forward, real, spectrum)
    }

    private func prepare(size newSize: Int) {
        guard newSize != size else { return }
        release()
        size = newSize
        let bins = size / 2 + 1
        real = fftwf_alloc_real(size)
        spectrumA = fftwf_alloc_complex(bins)
        spectrumB = fftwf_alloc_complex(bins)
        fftwPlannerLock.withLock {
            // The c2r plan may overwrite its input spectrum; we never reuse it afterwards.
            forward = fftwf_plan_dft_r2c_1d(Int32(size), real, spectrumA, FFTW_ESTIMATE)
            inverse = fftwf_plan_dft_c2r_1d(Int32(size), spectrumA, real, FFTW_ESTIMATE)
        }
    }

    private func release() {
        guard size > 0 else { return }
        fftwPlannerLock.withLock {
            fftwf_destroy_plan(forward)
            fftwf_destroy_plan(inverse)
        }
        fftwf_free(real)
        fftwf_free(spectrumA)
        fftwf_free(spectrumB)
        size = 0
    }

    private static func powerOfTwo(atLeast n: Int) -> Int {
        var size = 1
        while size < n { size <<= 1 }
        return size
    }
}
