/* tests/fuzz/fuzz_ksyms.c: the KSYMS blob's payload through the readers
 * (tests/fuzz/fuzz_blob.c). */
#define FR_FUZZ_BLOB_KIND FR_BLOB_KSYMS
#include "tests/fuzz/fuzz_blob.c"
