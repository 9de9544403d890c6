/* tests/fuzz/fuzz_vdso.c: the VDSO blob's payload through the readers
 * (tests/fuzz/fuzz_blob.c). */
#define FR_FUZZ_BLOB_KIND FR_BLOB_VDSO
#include "tests/fuzz/fuzz_blob.c"
