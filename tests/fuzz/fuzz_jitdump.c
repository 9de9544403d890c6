/* tests/fuzz/fuzz_jitdump.c: the jitdump parser (src/proc/jitdump.c). Input:
 * the bytes of a dump. Parsed whole, then again as a reader with a small
 * buffer does (each call given a few bytes of a file that holds them all,
 * more when a record's start does not fit): both must hand out the same
 * code, consume the same bytes, refuse alike; every name must be whole.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/proc/jitdump.h"
#include "src/util.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

struct seen {
	size_t n;
	uint64_t hash;    /* of every start, size and name handed out, in order */
};

static int seen_cb(void *ctx, uint64_t start, uint64_t size, const char *name, size_t len,
		   const char **kept)
{
	struct seen *s = ctx;
	uint64_t h = s->hash ^ start;

	if (!len || memchr(name, '\0', len) || name[len] != '\0')
		abort();   /* a name is whole: it ends at its NUL */
	h = h * 0x100000001b3ull ^ size;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 0x100000001b3ull;
	s->hash = h;
	s->n++;
	*kept = name;   /* the input lives through the run */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fr_jitdump whole, part;
	struct seen a = { 0, 0 }, b = { 0, 0 };
	size_t step = size ? 1 + (size_t)data[size - 1] * 3 : 1;
	int ea, eb = 0;

	fr_jitdump__init(&whole);
	ea = fr_jitdump__parse(&whole, data, size, size, seen_cb, &a);
	fr_jitdump__init(&part);
	while (part.off < size) {
		uint64_t before = part.off, left = size - part.off;
		size_t len = step < left ? step : (size_t)left;

		eb = fr_jitdump__parse(&part, data + part.off, len, left, seen_cb, &b);
		if (eb || part.capped)
			break;
		if (part.off == before) {
			if (len == left)
				break;          /* a record not whole in the file */
			step *= 2;              /* its start did not fit: a bigger read */
		}
	}
	if (whole.off > size || ea != eb || whole.off != part.off || a.n != b.n || a.hash != b.hash ||
	    whole.refused != part.refused || whole.skipped != part.skipped || whole.tail != part.tail)
		abort();
	fr_jitdump__exit(&whole);
	fr_jitdump__exit(&part);
	return 0;
}
