/* src/report/folded.c: the distinct stacks of a report with their weights
 * (shared by --folded, the flame graph and pprof), and --folded itself:
 * "comm;root;...;leaf count" lines, sorted, ';' and line breaks replaced.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/report/report.h"

struct stack {
	uint64_t hash, weight, samples, period;
	const char *comm;
	uint32_t n;                /* frames, leaf first */
	const struct fr_sym *frames[];
};

struct fr_folded {
	bool period;
	struct stack **slots;
	size_t cap, used;
	uint64_t total;
};

int fr_folded__new(bool period, struct fr_folded **out)
{
	struct fr_folded *fo = calloc(1, sizeof(*fo));

	if (!fo)
		return -ENOMEM;
	fo->period = period;
	*out = fo;
	return 0;
}

void fr_folded__delete(struct fr_folded *fo)
{
	if (!fo)
		return;
	for (size_t i = 0; i < fo->cap; i++)
		free(fo->slots[i]);
	free(fo->slots);
	free(fo);
}

static uint64_t hash_items(const void *comm, const struct fr_frame *f, size_t n)
{
	uint64_t x = (uintptr_t)comm * 0x9e3779b97f4a7c15ull;

	for (size_t i = 0; i < n; i++) {
		x ^= (uintptr_t)f[i].sym;
		x *= 0xff51afd7ed558ccdull;
		x ^= x >> 29;
	}
	return x;
}

static bool same(const struct stack *st, uint64_t h, const struct fr_rsample *s)
{
	if (st->hash != h || st->n != s->nr_frames || st->comm != s->comm)
		return false;
	for (size_t i = 0; i < s->nr_frames; i++)
		if (st->frames[i] != s->frames[i].sym)
			return false;
	return true;
}

static int grow(struct fr_folded *fo)
{
	size_t ncap = fo->cap ? fo->cap * 2 : 1024;
	struct stack **n = calloc(ncap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < fo->cap; i++) {
		size_t j;

		if (!fo->slots[i])
			continue;
		for (j = fo->slots[i]->hash & (ncap - 1); n[j]; j = (j + 1) & (ncap - 1))
			;
		n[j] = fo->slots[i];
	}
	free(fo->slots);
	fo->slots = n;
	fo->cap = ncap;
	return 0;
}

int fr_folded__add(struct fr_folded *fo, const struct fr_rsample *s)
{
	uint64_t h = hash_items(s->comm, s->frames, s->nr_frames);
	struct stack *st;
	size_t j;

	if ((fo->used + 1) * 2 > fo->cap && grow(fo))
		return -ENOMEM;
	for (j = h & (fo->cap - 1); fo->slots[j]; j = (j + 1) & (fo->cap - 1))
		if (same(fo->slots[j], h, s))
			break;
	st = fo->slots[j];
	if (!st) {
		st = malloc(sizeof(*st) + s->nr_frames * sizeof(st->frames[0]));
		if (!st)
			return -ENOMEM;
		st->hash = h;
		st->weight = st->samples = st->period = 0;
		st->comm = s->comm;
		st->n = (uint32_t)s->nr_frames;
		for (size_t i = 0; i < s->nr_frames; i++)
			st->frames[i] = s->frames[i].sym;
		fo->slots[j] = st;
		fo->used++;
	}
	st->weight += fo->period ? s->period : 1;
	st->samples++;
	st->period += s->period;
	fo->total += fo->period ? s->period : 1;
	return 0;
}

uint64_t fr_folded__total(const struct fr_folded *fo)
{
	return fo->total;
}

int fr_folded__for_each(struct fr_folded *fo, fr_folded_cb cb, void *ctx)
{
	for (size_t i = 0; i < fo->cap; i++) {
		const struct stack *st = fo->slots[i];
		int err;

		if (st && (err = cb(ctx, st->comm, st->frames, st->n, st->weight, st->samples, st->period)))
			return err;
	}
	return 0;
}

/* Append name with ';' -> ':' and control characters -> '_'. */
static size_t put_name(char *out, const char *name)
{
	size_t n = 0;

	for (const char *p = name; *p; p++)
		out[n++] = *p == ';' ? ':' : (unsigned char)*p < 0x20 ? '_' : *p;
	return n;
}

static char *stack_line(const struct stack *st)
{
	size_t len = 32;
	char *line, *p;

	len += strlen(st->comm) + 1;
	for (uint32_t i = 0; i < st->n; i++)
		len += strlen(st->frames[i]->name) + 1;
	line = p = malloc(len);
	if (!line)
		return NULL;
	p += put_name(p, st->comm);
	for (uint32_t i = st->n; i-- > 0;) {
		*p++ = ';';
		p += put_name(p, st->frames[i]->name);
	}
	snprintf(p, 32, " %llu", (unsigned long long)st->weight);
	return line;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int fr_folded__print(struct fr_folded *fo, FILE *f)
{
	char **lines = calloc(fo->used + 1, sizeof(*lines));
	size_t n = 0;
	int err = 0;

	if (!lines)
		return -ENOMEM;
	for (size_t i = 0; i < fo->cap && !err; i++) {
		if (!fo->slots[i])
			continue;
		lines[n] = stack_line(fo->slots[i]);
		if (!lines[n++])
			err = -ENOMEM;
	}
	if (!err) {
		qsort(lines, n, sizeof(*lines), cmp_str);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%s\n", lines[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	return err ? err : ferror(f) ? -EIO : 0;
}
