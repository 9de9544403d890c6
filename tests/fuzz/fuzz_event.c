/* tests/fuzz/fuzz_event.c: the parsers of what users type: event names
 * (ring/event.c, -e EVENT) and numbers, sizes, durations, rates and pid lists
 * (src/util.c). Input: one selector byte, then the text.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ring/event.h"
#include "src/util.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static bool tp_part(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return n > 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	volatile uint64_t sink = 0;
	uint64_t a, b;
	size_t pages;
	struct fr_event *ev;
	char *s, *colon;
	int *pids = NULL;
	size_t nr = 0;

	if (!size || size > 4096)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (data[0] % 7) {
	case 0:
		/* a well-formed tracepoint name would read tracefs: names only */
		colon = strchr(s, ':');
		if (!colon || !tp_part(s, (size_t)(colon - s)) || !tp_part(colon + 1, strlen(colon + 1)) ||
		    strchr(colon + 1, ':')) {
			if (!fr_event__resolve(s, &ev)) {
				sink += ev->attr.config + strlen(ev->name);
				fr_event__delete(ev);
			}
		}
		break;
	case 1:
		if (!fr_parse__u64(s, 0, UINT64_MAX, &a))
			sink += a;
		fr_parse__u64(s, 5, 100, &a);
		break;
	case 2:
		if (!fr_parse__size(s, &a))
			sink += a;
		break;
	case 3:
		if (!fr_parse__pages(s, 4096, 1u << 20, &pages))
			sink += pages;
		break;
	case 4:
		if (!fr_parse__duration(s, &a))
			sink += a;
		break;
	case 5:
		if (!fr_parse__rate(s, &a, &b))
			sink += a + b;
		break;
	case 6:
		if (!fr_parse__pids(s, &pids, &nr))
			for (size_t i = 0; i < nr; i++)
				sink += (uint64_t)pids[i];
		free(pids);
		break;
	}
	(void)sink;
	free(s);
	return 0;
}
