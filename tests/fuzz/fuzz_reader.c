/* tests/fuzz/fuzz_reader.c: the file reader alone, with `dump` behind it
 * (chunk checks, merge, blobs, tracepoint fields): fuzz_file without the
 * report outputs and symbolization, hundreds of times faster, so the reader
 * gets tens of millions of executions. Same input, same mutator.
 */
#define FR_FUZZ_READER_ONLY 1
#include "tests/fuzz/fuzz_file.c"
