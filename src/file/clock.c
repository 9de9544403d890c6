/* src/file/clock.c: the CLOCK_REALTIME <-> event clock pairs of a file:
 * taking one with the realtime read bracketed, their meta text, and the
 * offset a reader converts with (doc/format.md, "Clock pairs").
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/file/clock.h"
#include "src/file/file.h"

#define PAIR_TRIES 5

static int now(clockid_t id, uint64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return -errno;
	*ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return 0;
}

int fr_clock__pair(struct fr_clock_pair *p)
{
	bool have = false;
	int err;

	for (int i = 0; i < PAIR_TRIES; i++) {
		uint64_t a = 0, r = 0, b = 0;

		if ((err = now(CLOCK_MONOTONIC, &a)) || (err = now(CLOCK_REALTIME, &r)) ||
		    (err = now(CLOCK_MONOTONIC, &b)))
			return err;
		if (b < a)
			continue;
		if (!have || b - a < p->bracket_ns)
			*p = (struct fr_clock_pair){ a + (b - a) / 2, r, b - a };
		have = true;
	}
	return have ? 0 : -EAGAIN;
}

void fr_clock__format(const struct fr_clock_pair *p, char *buf, size_t len)
{
	snprintf(buf, len, "%llu %llu %llu", (unsigned long long)p->mono_ns,
		 (unsigned long long)p->real_ns, (unsigned long long)p->bracket_ns);
}

int fr_clock__put_meta(struct fr_writer *w, const char *key, const struct fr_clock_pair *p)
{
	struct fr_clock_pair now_pair;
	char text[FR_CLOCK_PAIR_TEXT];
	int err;

	if (!p) {
		if ((err = fr_clock__pair(&now_pair)))
			return err;
		p = &now_pair;
	}
	fr_clock__format(p, text, sizeof(text));
	return fr_writer__meta(w, key, text);
}

/* One decimal number ending at a space (or the end for the last). */
static int number(const char **s, bool last, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (**s < '0' || **s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(*s, &end, 10);
	if (errno || end == *s || (last ? *end != '\0' : *end != ' ') || v > INT64_MAX)
		return -EINVAL;
	*out = v;
	*s = last ? end : end + 1;
	return 0;
}

int fr_clock__parse(const char *s, struct fr_clock_pair *p)
{
	struct fr_clock_pair q;

	if (!s || number(&s, false, &q.mono_ns) || number(&s, false, &q.real_ns) ||
	    number(&s, true, &q.bracket_ns))
		return -EINVAL;
	*p = q;
	return 0;
}

int fr_clock__of_file(const struct fr_reader *rd, struct fr_clock_ref *out)
{
	static const char *keys[] = { FR_META_CLOCK_SNAPSHOT, FR_META_CLOCK_START };
	const char *v;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct fr_clock_pair p;

		if (!fr_clock__parse(fr_reader__meta(rd, keys[i]), &p)) {
			out->real_minus_mono = (int64_t)p.real_ns - (int64_t)p.mono_ns;
			out->source = keys[i];
			return 0;
		}
	}
	v = fr_reader__meta(rd, "realtime_offset_ns");
	if (v) {
		char *end;
		long long off;

		errno = 0;
		off = strtoll(v, &end, 10);
		if (!errno && end != v && !*end) {
			out->real_minus_mono = off;
			out->source = "realtime_offset_ns";
			return 0;
		}
	}
	return -ENOENT;
}

uint64_t fr_clock__to_real(const struct fr_clock_ref *c, uint64_t t)
{
	if (c->real_minus_mono < 0 && t < (uint64_t)-c->real_minus_mono)
		return 0;
	return t + (uint64_t)c->real_minus_mono;
}

bool fr_clock__to_mono(const struct fr_clock_ref *c, uint64_t real_ns, uint64_t *t)
{
	if (c->real_minus_mono > 0 && real_ns < (uint64_t)c->real_minus_mono)
		return false;
	*t = real_ns - (uint64_t)c->real_minus_mono;
	return true;
}
