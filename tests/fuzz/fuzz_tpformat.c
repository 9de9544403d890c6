/* tests/fuzz/fuzz_tpformat.c: format text from a file into the function the
 * reader calls (fr_tpdecode__add: the strict grammar, then libtraceevent on
 * the canonical text), then records decoded with what it accepted: the
 * field printing that uses the parsed print args, and the print fmt's own
 * evaluation (tpprint.c, through fr_tpdecode__text) with every cut of the
 * output buffer's size. Input: the format text;
 * the event is "fuzz:NAME" after its "name: " line, so the name check passes.
 * Seeds: every format of this machine's tracefs (make fuzz copies them).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/tp/tpdecode.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static int field_cb(void *ctx, const char *field, const char *text, bool is_signed,
		    unsigned long long v, long long sv)
{
	(void)ctx;
	(void)field;
	(void)text;
	(void)is_signed;
	(void)v;
	(void)sv;
	return 0;
}

/* Records of several sizes: zeros, ones, and the input's own bytes (so that
 * __data_loc words and string ends take every value). */
static void decode(struct fr_tpdecode *d, const char *name, const uint8_t *data, size_t size)
{
	static uint8_t raw[4096];
	static const size_t sizes[] = { 0, 8, 24, 64, 256, 4096 };
	char buf[4096];

	for (int fill = 0; fill < 3; fill++) {
		for (size_t i = 0; i < sizeof(raw); i++)
			raw[i] = fill == 0 ? 0 : fill == 1 ? 0xff : size ? data[i % size] : 0;
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			fr_tpdecode__check(d, name, raw, sizes[k]);
			fr_tpdecode__fields(d, name, raw, sizes[k], buf, sizeof(buf));
			fr_tpdecode__each(d, name, raw, sizes[k], field_cb, NULL);
			fr_tpdecode__text(d, name, raw, sizes[k], buf, sizeof(buf));
			fr_tpdecode__text(d, name, raw, sizes[k], buf, 1 + k * 7);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fr_tpdecode *d;
	char name[160] = "fuzz:x";
	const char *nl;

	if (size > 6 && !memcmp(data, "name: ", 6)) {
		nl = memchr(data + 6, '\n', size - 6);
		if (nl && (size_t)(nl - (const char *)data - 6) < sizeof(name) - 6)
			snprintf(name, sizeof(name), "fuzz:%.*s", (int)(nl - (const char *)data - 6),
				 (const char *)data + 6);
	}
	if (fr_tpdecode__new(&d))
		return 0;
	fr_tpdecode__add(d, name, (const char *)data, size);
	decode(d, name, data, size);
	fr_tpdecode__delete(d);
	return 0;
}
