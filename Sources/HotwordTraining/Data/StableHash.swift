/// Hashes of strings that are the same on every run and machine, unlike `Hasher`.
enum StableHash {
    /// FNV-1a (64 bit) of the string's UTF-8.
    static func of(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }

    /// A value in [0, 1) spread evenly over strings, however alike they are. FNV-1a alone
    /// changes its top bits very little between short names that differ in their last byte
    /// ("alexa/0" … "alexa/99"), so it is followed by MurmurHash3's 64-bit finaliser, which
    /// lets every input bit flip every output bit with probability about ½.
    static func unitInterval(of text: String) -> Double {
        var hash = of(text)
        hash ^= hash >> 33
        hash &*= 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 33
        hash &*= 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 33
        return Double(hash >> 11) / Double(1 << 53)
    }
}
