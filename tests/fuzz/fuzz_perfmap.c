/* tests/fuzz/fuzz_perfmap.c: the PERFMAP blob decoder and the perf map text
 * parser (src/proc/perfmap.c). Input: a blob payload, and the same bytes as
 * map text. A payload it accepts must encode and decode back to the same
 * entries, also into a set with a small budget (src/proc/perfmap_budget.c:
 * the oldest dropped, the pool rebuilt), which must hold no more than it;
 * every name it answers must be whole; text never fails but for memory.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "src/proc/perfmap.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static volatile size_t sink;

struct back {
	struct fr_perfmaps *pm;
	int err;
};

static int decode_back(void *ctx, const void *data, size_t len)
{
	struct back *b = ctx;

	b->err = fr_perfmap__decode(b->pm, data, len);
	return b->err;
}

/* Every address the input names (u64 at each offset), in both sets. */
static void check_same(struct fr_perfmaps *a, struct fr_perfmaps *b, const uint8_t *data, size_t size)
{
	uint32_t pids[64];
	size_t n = fr_perfmaps__pids(a, pids, 64);

	for (size_t i = 0; i < n && i < 64; i++) {
		for (size_t off = 0; off + 8 <= size; off++) {
			const struct fr_perfmap_entry *x, *y;
			uint64_t addr;

			memcpy(&addr, data + off, 8);
			x = fr_perfmaps__find(a, pids[i], addr);
			y = fr_perfmaps__find(b, pids[i], addr);
			if (!x != !y || (x && (x->start != y->start || x->size != y->size ||
					       strcmp(x->name, y->name))))
				abort();
			if (x)
				sink += strlen(x->name);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fr_perfmaps *pm, *text;
	struct back b = { NULL, 0 };
	size_t used;

	if (fr_perfmaps__new(&pm))
		return 0;
	if (!fr_perfmap__decode(pm, data, size) && !fr_perfmaps__new(&b.pm)) {
		if (fr_perfmap__encode(pm, NULL, 0, 1 << 20, decode_back, &b) || b.err)
			abort();   /* what it read, it writes and reads back */
		check_same(pm, b.pm, data, size);
		fr_perfmaps__delete(b.pm);
	}
	fr_perfmaps__delete(pm);
	/* a budget of 1 to 16 KiB (the input's first byte): what it holds
	 * encodes and decodes back the same, within the budget */
	if (size && !fr_perfmaps__new(&pm)) {
		struct fr_perfmap_budget st;

		fr_perfmaps__set_budget(pm, 1024 + (uint64_t)(data[0] & 15) * 1024);
		if (!fr_perfmap__decode(pm, data, size) && !fr_perfmaps__new(&b.pm)) {
			fr_perfmaps__budget_stats(pm, &st);
			if (st.held > st.budget)
				abort();
			if (fr_perfmap__encode(pm, NULL, 0, 1 << 20, decode_back, &b) || b.err)
				abort();
			check_same(pm, b.pm, data, size);
			fr_perfmaps__delete(b.pm);
		}
		fr_perfmaps__delete(pm);
	}
	if (!fr_perfmaps__new(&text)) {
		fr_perfmaps__set_budget(text, size & 1 ? 4096 : 0);   /* text past a budget too */
		if (fr_perfmaps__add_text(text, 7, (const char *)data, size, &used) == 0 && used > size)
			abort();
		if (size >= 8) {
			uint64_t addr;

			memcpy(&addr, data, 8);
			if (fr_perfmaps__find(text, 7, addr))
				sink++;
		}
		fr_perfmaps__delete(text);
	}
	return 0;
}
