/* src/report/fmt/folded.c: the distinct stacks of a report with their weights
 * (shared by --folded, the flame graph and the HTML page), and --folded itself:
 * "comm;root;...;leaf count" lines, sorted, ';' and line breaks replaced.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hmap.h"
#include "src/report/fmt/fmt.h"
#include "src/report/pass/pass.h"

struct stack {
	uint64_t weight, samples, period;
	const char *comm;
	uint32_t n;                /* frames, leaf first */
	const struct fr_sym *frames[];
};

struct fr_folded {
	bool period;
	struct stack **v;          /* in the order first seen */
	size_t used, cap;
	struct fr_hmap index;      /* (comm, frames) -> v[] */
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
	for (size_t i = 0; i < fo->used; i++)
		free(fo->v[i]);
	free(fo->v);
	fr_hmap__exit(&fo->index);
	free(fo);
}

static uint64_t hash_items(const void *comm, const struct fr_frame *f, size_t n)
{
	uint64_t x = fr_hash__mix(0, (uintptr_t)comm);

	for (size_t i = 0; i < n; i++)
		x = fr_hash__mix(x, (uintptr_t)f[i].sym);
	return x;
}

static bool same(const struct stack *st, const struct fr_rsample *s)
{
	if (st->n != s->nr_frames || st->comm != s->comm)
		return false;
	for (size_t i = 0; i < s->nr_frames; i++)
		if (st->frames[i] != s->frames[i].sym)
			return false;
	return true;
}

static struct stack *find(const struct fr_folded *fo, uint64_t h, const struct fr_rsample *s)
{
	struct fr_hmap_it it;
	uint32_t i;

	for (bool ok = fr_hmap__first(&fo->index, h, &it, &i); ok; ok = fr_hmap__next(&fo->index, &it, &i))
		if (same(fo->v[i], s))
			return fo->v[i];
	return NULL;
}

int fr_folded__add(struct fr_folded *fo, const struct fr_rsample *s)
{
	uint64_t h = hash_items(s->comm, s->frames, s->nr_frames);
	struct stack *st = find(fo, h, s);

	if (!st) {
		if (fo->used >= UINT32_MAX ||
		    fr_grow(&fo->v, &fo->cap, fo->used + 1, sizeof(*fo->v), 1024))
			return -ENOMEM;
		st = malloc(sizeof(*st) + s->nr_frames * sizeof(st->frames[0]));
		if (!st || fr_hmap__add(&fo->index, h, (uint32_t)fo->used)) {
			free(st);
			return -ENOMEM;
		}
		st->weight = st->samples = st->period = 0;
		st->comm = s->comm;
		st->n = (uint32_t)s->nr_frames;
		for (size_t i = 0; i < s->nr_frames; i++)
			st->frames[i] = s->frames[i].sym;
		fo->v[fo->used++] = st;
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
	for (size_t i = 0; i < fo->used; i++) {
		const struct stack *st = fo->v[i];
		int err;

		if ((err = cb(ctx, st->comm, st->frames, st->n, st->weight, st->samples, st->period)))
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

static char *stack_line(const struct stack *st, uint64_t div)
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
	snprintf(p, 32, " %llu", (unsigned long long)((st->weight + div / 2) / div));
	return line;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int fr_folded__print(struct fr_folded *fo, FILE *f)
{
	return fr_folded__print_scaled(fo, 1, f);
}

int fr_folded__print_scaled(struct fr_folded *fo, uint64_t div, FILE *f)
{
	char **lines = calloc(fo->used + 1, sizeof(*lines));
	size_t n = 0;
	int err = 0;

	if (!lines)
		return -ENOMEM;
	for (size_t i = 0; i < fo->used && !err; i++) {
		lines[n] = stack_line(fo->v[i], div ? div : 1);
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
