/* src/parse.c: strict number parsing for the command line (end pointer,
 * range and overflow checks, no sign, no leading blanks).
 */
#include "config.h"
#include "src/parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int fr_parse__u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int fr_parse__size(const char *s, uint64_t *out)
{
	unsigned long long v;
	uint64_t mult = 1;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	switch (*end) {
	case 'k': case 'K': mult = 1ull << 10; end++; break;
	case 'm': case 'M': mult = 1ull << 20; end++; break;
	case 'g': case 'G': mult = 1ull << 30; end++; break;
	default: break;
	}
	if (mult > 1 && *end == 'i')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return -EINVAL;
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*out = v * mult;
	return 0;
}

int fr_parse__pages(const char *s, size_t page_size, size_t max_pages, size_t *out)
{
	uint64_t v;
	int err;

	if (s && *s && isdigit((unsigned char)s[strlen(s) - 1])) {
		err = fr_parse__u64(s, 1, max_pages, &v);
	} else {
		err = fr_parse__size(s, &v);
		if (!err && (v % page_size || v == 0))
			return -EINVAL;
		v /= page_size;
		if (!err && (v < 1 || v > max_pages))
			err = -ERANGE;
	}
	if (err)
		return err;
	if (v & (v - 1))
		return -EDOM;
	*out = (size_t)v;
	return 0;
}

int fr_parse__pids(const char *s, int **out, size_t *nr)
{
	int *pids = NULL;
	size_t n = 0;
	char *copy, *tok, *save = NULL;
	int err = 0;

	if (!s || !*s)
		return -EINVAL;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		int *np;

		err = fr_parse__u64(tok, 1, 4194304, &v);
		if (err)
			break;
		np = realloc(pids, (n + 1) * sizeof(*np));
		if (!np) {
			err = -ENOMEM;
			break;
		}
		pids = np;
		pids[n++] = (int)v;
	}
	/* "1,,2" or a trailing comma leaves an empty token strtok skips: refuse it */
	if (!err && (strstr(s, ",,") || s[0] == ',' || s[strlen(s) - 1] == ','))
		err = -EINVAL;
	free(copy);
	if (err || !n) {
		free(pids);
		return err ? err : -EINVAL;
	}
	*out = pids;
	*nr = n;
	return 0;
}
