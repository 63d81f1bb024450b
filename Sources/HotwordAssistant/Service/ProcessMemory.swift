import CMalloc

/// How the C allocator treats large buffers in a process that runs for months.
///
/// glibc serves allocations of 128 KiB and more with mmap and unmaps them when they are freed —
/// until the first such block is freed: then it raises that threshold to the block's size (up
/// to 32 MiB), so later large buffers come from its heaps and, once freed, mostly stay in the
/// process. The assistant's large buffers come and go with every question (the utterance, the
/// recogniser's work, synthesised speech), and its resident memory crept up by several MiB an
/// hour in the soak test (docs/soak.md). A fixed threshold keeps them returnable.
public enum ProcessMemory {
    /// Allocations of this size and more go back to the system when freed.
    static let largeAllocationBytes = 128 * 1024

    /// Fixes glibc's threshold at `largeAllocationBytes` for the whole process; false where
    /// the C library is not glibc (nothing to do).
    @discardableResult
    public static func returnLargeAllocationsToTheSystem() -> Bool {
        #if canImport(Glibc)
        mallopt(M_MMAP_THRESHOLD, Int32(largeAllocationBytes)) == 1
        #else
        false
        #endif
    }

    /// Gives the free memory inside the allocator's heaps back to the system. Small blocks (the
    /// recogniser's, the synthesiser's, the HTTP client's) are freed in any order across several
    /// per-thread heaps; glibc returns only a heap's free top by itself, so pages freed in the
    /// middle stay resident, and the soak's resident memory crept up about 1.5 MiB an hour.
    /// Called after each conversation, off the audio thread (it takes a few milliseconds).
    public static func releaseFreeMemory() {
        #if canImport(Glibc)
        _ = malloc_trim(0)
        #endif
    }
}
