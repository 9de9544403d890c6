/* tests/fuzz/fuzz_trigger.c: the TRIGGER blob's payload through the readers
 * (tests/fuzz/fuzz_blob.c). */
#define FR_FUZZ_BLOB_KIND FR_BLOB_TRIGGER
#define FR_FUZZ_OTLP      /* and the otlp output, which reads its keys */
#include "tests/fuzz/fuzz_blob.c"
