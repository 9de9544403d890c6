/* tests/fuzz/fuzz_trigger.c: the TRIGGER blob's payload through the readers
 * (tests/fuzz/fuzz_blob.c). */
#define FR_FUZZ_BLOB_KIND FR_BLOB_TRIGGER
#include "tests/fuzz/fuzz_blob.c"
