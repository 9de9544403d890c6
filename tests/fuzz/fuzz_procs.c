/* tests/fuzz/fuzz_procs.c: the PROCS blob's payload through the readers
 * (tests/fuzz/fuzz_blob.c). */
#define FR_FUZZ_BLOB_KIND FR_BLOB_PROCS
#define FR_FUZZ_PROCS 1
#include "tests/fuzz/fuzz_blob.c"
