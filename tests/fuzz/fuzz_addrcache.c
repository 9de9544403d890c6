/* tests/fuzz/fuzz_addrcache.c: the build-id cache's files of resolved
 * addresses (symbolize/addrcache.c). Input: a whole .addrs file, read as
 * one for the key of the seeds (build id ab cd 01..12, flags 1, ident
 * "/x.debug\n10\n1.0"). A file it accepts must serialize and read back
 * with every answer the same, and every string it answers must be whole.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "symbolize/internal.h"
#include "tests/fuzz/fuzz.h"

static const unsigned char id[20] = { 0xab, 0xcd, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
				      11, 12, 13, 14, 15, 16, 17, 18 };
#define IDENT "/x.debug\n10\n1.0"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static volatile size_t sink;

/* The pc of every entry: the file's entries are read back in the order
 * written, so probe the pcs the input names (u64 after a frame count). */
static void check_same(const struct fr_addrcache *a, const struct fr_addrcache *b,
		       const uint8_t *data, size_t size)
{
	struct fr_raw_frame x[64], y[64];

	for (size_t off = 0; off + 8 <= size; off++) {
		uint64_t pc;
		int n, m;

		memcpy(&pc, data + off, 8);
		n = fr_addrcache__get(a, pc, x, 64);
		m = fr_addrcache__get(b, pc, y, 64);
		if (n != m)
			abort();
		for (int i = 0; i < n; i++) {
			if ((!x[i].name != !y[i].name) || (x[i].name && strcmp(x[i].name, y[i].name)) ||
			    (!x[i].file != !y[i].file) || (x[i].file && strcmp(x[i].file, y[i].file)) ||
			    x[i].line != y[i].line || x[i].inlined != y[i].inlined || x[i].off != y[i].off)
				abort();
			sink += (x[i].name ? strlen(x[i].name) : 0) + (x[i].file ? strlen(x[i].file) : 0);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fr_addrcache *ac, *back;
	void *buf;
	size_t len;

	if (fr_addrcache__new(id, 20, FR_AC_INLINES, IDENT, &ac))
		return 0;
	if (fr_addrcache__parse(ac, data, size) == 0) {
		if (fr_addrcache__serialize(ac, &buf, &len) == 0) {
			if (fr_addrcache__new(id, 20, FR_AC_INLINES, IDENT, &back) == 0) {
				if (fr_addrcache__parse(back, buf, len))
					abort();   /* what it wrote, it must read */
				check_same(ac, back, data, size);
				fr_addrcache__delete(back);
			}
			free(buf);
		}
	}
	fr_addrcache__delete(ac);
	return 0;
}
