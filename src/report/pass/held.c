/* src/report/pass/held.c: what a file holds, said in one line when the report's
 * filters (--pid, --tid, --comm, --time) select no sample: its samples' span
 * and the processes that have the most of them, by name.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/util.h"
#include "src/report/pass/pass.h"

#define HELD_PIDS 6   /* processes named in the line */
#define HELD_SLOTS 64 /* processes counted (the first seen; the rest are "others") */

struct held_pid {
	uint32_t pid;
	uint64_t n;
	char comm[32];
};

struct held {
	struct fr_resolver *res;
	struct held_pid p[HELD_SLOTS];
	size_t np;
	uint64_t samples, others, first, last;
};

static int held_cb(void *ctx, const struct fr_rec *r)
{
	struct held *h = ctx;
	struct fr_sample s;
	size_t i;

	if (!r->event)
		return 0;
	if (r->kind == FR_STREAM_SIDEBAND)
		return fr_resolver__sideband(h->res, r) < 0;
	if (r->h->type != PERF_RECORD_SAMPLE || (r->event->flags & FR_EVENT_SIDEBAND) || !r->sample)
		return 0;
	s = *r->sample;
	if (!h->samples++)
		h->first = r->time;
	h->last = r->time;
	for (i = 0; i < h->np && h->p[i].pid != s.pid; i++)
		;
	if (i == h->np) {
		if (h->np == HELD_SLOTS) {
			h->others++;
			return 0;
		}
		h->p[i] = (struct held_pid){ .pid = s.pid };
		snprintf(h->p[i].comm, sizeof(h->p[i].comm), "%s",
			 fr_resolver__comm(h->res, s.tid, r->time));
		h->np++;
	}
	h->p[i].n++;
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct held_pid *x = a, *y = b;

	return x->n != y->n ? (x->n < y->n ? 1 : -1) : (x->pid > y->pid) - (x->pid < y->pid);
}

int fr_held__say(const char *path, const struct fr_symbolizer_opts *so)
{
	struct held h = { 0 };
	struct fr_reader *rd = NULL;
	char line[768];
	size_t n = 0;
	uint64_t rest;

	if (fr_reader__open(path, &rd) || fr_resolver__new(rd, so, &h.res)) {
		fr_err(path, "no sample matches --pid, --tid, --comm or --time");
		fr_reader__close(rd);
		return FR_EXIT_PARTIAL;
	}
	fr_reader__for_each(rd, held_cb, &h);
	if (h.np)   /* qsort of a NULL array (none) is UB */
		qsort(h.p, h.np, sizeof(h.p[0]), by_count);
	rest = h.others;
	for (size_t i = 0; i < h.np; i++) {
		if (i < HELD_PIDS && n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%u %s (%llu)",
					      i ? ", " : "", h.p[i].pid, h.p[i].comm,
					      (unsigned long long)h.p[i].n);
		else
			rest += h.p[i].n;
	}
	if (rest && n < sizeof(line))
		snprintf(line + n, sizeof(line) - n, ", others (%llu)", (unsigned long long)rest);
	if (!h.samples)
		fr_err(path, "no sample matches --pid, --tid, --comm or --time: the file holds no "
		       "samples");
	else
		fr_err(path, "no sample matches --pid, --tid, --comm or --time: the file holds "
		       "%llu samples from %llu.%09llu to %llu.%09llu, pid comm (samples): %s",
		       (unsigned long long)h.samples,
		       (unsigned long long)(h.first / 1000000000ull),
		       (unsigned long long)(h.first % 1000000000ull),
		       (unsigned long long)(h.last / 1000000000ull),
		       (unsigned long long)(h.last % 1000000000ull), line);
	fr_resolver__delete(h.res);
	fr_reader__close(rd);
	return FR_EXIT_PARTIAL;
}
