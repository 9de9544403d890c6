/* tests/fuzz/fuzz.h: what the fuzz targets share: the libFuzzer entry points
 * (built with clang -fsanitize=fuzzer by `make fuzz`, FR_LIBFUZZER defined)
 * and the gcc replay driver (replay.c) that `make check` runs them through.
 */
#ifndef FR_FUZZ_H
#define FR_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);
#ifdef FR_LIBFUZZER
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
#endif

#endif
