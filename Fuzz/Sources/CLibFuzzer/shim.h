// libFuzzer's documented entry for programs with their own main (libclang_rt.fuzzer, linked by
// -sanitize=fuzzer). Declared here because the toolchain ships no header for it.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));

// libFuzzer's own mutation of Data[0..<Size] in place (up to MaxSize bytes), for custom mutators.
size_t LLVMFuzzerMutate(uint8_t *Data, size_t Size, size_t MaxSize);
