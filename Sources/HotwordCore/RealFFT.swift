import CFFTW
import Foundation

/// FFTW's planner has global state and is not thread-safe; executing an existing plan on
/// arrays of the same alignment is.
let fftwPlannerLock = NSLock()

/// The forward FFT of `size` real samples (FFTW r2c), planned once on its own aligned buffers.
///
/// Planned with FFTW_ESTIMATE rather than FFTW_MEASURE: measuring picks the algorithm by
/// timing, so two extractors (or training and the daemon) could round differently; estimating
/// always picks the same plan and so gives bit-identical features.
final class RealFFT {
    /// `size` samples in; the transform leaves them untouched (out-of-place r2c preserves input).
    let input: UnsafeMutablePointer<Float>
    /// size/2 + 1 bins out, interleaved (re, im): X_k = Σ_n x[n]·e^(−2πikn/size).
    let output: UnsafeMutablePointer<Float>
    /// `output` as FFTW's complex type, for the calls into FFTW.
    private let complexOutput: UnsafeMutablePointer<fftwf_complex>
    private let plan: OpaquePointer

    /// `size` must be a power of two (checked by `FrontendConfig.validate`).
    init(size: Int) {
        let bins = size / 2 + 1
        let input = fftwf_alloc_real(size)!
        let complexOutput = fftwf_alloc_complex(bins)!
        plan = fftwPlannerLock.withLock {
            fftwf_plan_dft_r2c_1d(Int32(size), input, complexOutput, FFTW_ESTIMATE)!
        }
        input.initialize(repeating: 0, count: size)
        self.input = input
        self.complexOutput = complexOutput
        output = UnsafeMutableRawPointer(complexOutput).bindMemory(to: Float.self, capacity: 2 * bins)
        output.initialize(repeating: 0, count: 2 * bins)
    }

    deinit {
        fftwPlannerLock.withLock { fftwf_destroy_plan(plan) }
        fftwf_free(input)
        fftwf_free(complexOutput)
    }

    /// output ← FFT(input).
    func transform() {
        fftwf_execute_dft_r2c(plan, input, complexOutput)
    }
}
