/* src/record/thread_names.c: every thread's name in a snapshot, whatever the
 * rings overwrote: a backward recorder reads the living threads' names from
 * /proc into the process table (their renames went into the sample rings),
 * and every snapshot carries each thread's newest name as a COMM record of
 * the synthesized sideband stream (the PROCS blob names main threads), and
 * withdraws a name learnt late where the window holds the thread's renames.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/grow.h"
#include "ring/record.h"
#include "src/file/file.h"
#include "src/proc/proctable.h"
#include "src/record/session_internal.h"

struct name_ref {
	uint64_t time;
	size_t off;
};

struct names {
	struct fr_session *s;
	uint64_t now, from, sample_type;
	int pid;
	uint32_t *pids;             /* sorted; NULL: every process */
	size_t nr_pids;
	uint8_t *buf;               /* the COMM records */
	size_t len, cap;
	struct name_ref *refs;
	size_t nr, cap_refs;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static bool wanted(const struct names *n, uint32_t pid)
{
	return !n->pids || bsearch(&pid, n->pids, n->nr_pids, sizeof(pid), cmp_u32);
}

static int proc_tid(void *ctx, int tid)
{
	struct names *n = ctx;
	char comm[32];

	if (!fr_procfs__thread_comm(n->pid, tid, comm))   /* else gone meanwhile */
		fr_sideband__name_now(n->s->sb, (uint32_t)n->pid, (uint32_t)tid, comm, n->now);
	return 0;
}

static int proc_pid(void *ctx, int pid)
{
	struct names *n = ctx;
	char path[64];

	if (!wanted(n, (uint32_t)pid))
		return 0;
	n->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	fr_procfs__for_each_id(path, proc_tid, n);   /* gone, or not ours to read: as it was */
	return 0;
}

/* One COMM record into n's list. */
static int add_comm(struct names *n, uint32_t pid, uint32_t tid, const char *comm, uint64_t t)
{
	int k;

	if (fr_grow(&n->buf, &n->cap, n->len + 128, 1, 65536) ||
	    fr_grow(&n->refs, &n->cap_refs, n->nr + 1, sizeof(*n->refs), 256))
		return -ENOMEM;
	k = fr_record__make_comm(n->buf + n->len, 128, pid, tid, comm, 0, n->sample_type, t);
	if (k < 0)
		return 0;
	n->refs[n->nr++] = (struct name_ref){ t, n->len };
	n->len += (size_t)k;
	return 0;
}

static int add_name(void *ctx, uint32_t pid, uint32_t tid, const struct fr_pcomm *newest)
{
	struct names *n = ctx;

	/* main threads' names are their images' (PROCS) */
	if (pid == tid || !wanted(n, pid) || !newest->comm || !newest->comm[0])
		return 0;
	return add_comm(n, pid, tid, newest->comm, newest->time > n->from ? newest->time : n->from);
}

static int cmp_ref(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Threads the window renames itself: their late names withdrawn for this
 * file (after the late names' records: at the same time, they win). */
static int withdraw(struct names *n, const uint32_t *tids, size_t nr)
{
	const struct fr_proctable *pt = fr_sideband__procs(n->s->sb);
	int err = 0;

	for (size_t i = 0; i < nr && !err; i++) {
		uint32_t pid = fr_proctable__thread_pid(pt, tids[i]);
		const char *before, *late;
		uint64_t t;

		if (!pid || !wanted(n, pid) || !(t = fr_proctable__thread_late(pt, tids[i])))
			continue;
		before = fr_proctable__thread_comm(pt, tids[i], t - 1);
		late = fr_proctable__thread_comm(pt, tids[i], t);
		if (before && late && strcmp(before, late))
			err = add_comm(n, pid, tids[i], before, t);
	}
	return err;
}

int fr_session_thread_names(struct fr_session *s, struct fr_writer *w,
			    const struct fr_streams *c, bool from_proc)
{
	struct names n = { .s = s, .now = fr_session_now(CLOCK_MONOTONIC),
			   .from = fr_sideband__synth_time(s->sb),
			   .sample_type = fr_evlist__sideband_event(s->el)->attr.sample_type };
	int err = 0;

	if (c->pids) {
		if (!(n.pids = malloc((c->nr_pids ? c->nr_pids : 1) * sizeof(*n.pids))))
			return -ENOMEM;
		memcpy(n.pids, c->pids, c->nr_pids * sizeof(*c->pids));
		qsort(n.pids, c->nr_pids, sizeof(*n.pids), cmp_u32);
		n.nr_pids = c->nr_pids;
	}
	/* without pids no sample needs a name (backward mode names the pids
	 * of its samples) */
	if (from_proc && c->pids && fr_procfs__for_each_id("/proc", proc_pid, &n) == -ENOMEM)
		err = -ENOMEM;
	if (!err)
		err = fr_proctable__for_each_thread(fr_sideband__procs(s->sb), add_name, &n);
	if (!err)
		err = withdraw(&n, c->comm_tids, c->nr_comm_tids);
	if (!err && n.nr) {
		/* in time order, after the synthesized records (none is older) */
		qsort(n.refs, n.nr, sizeof(*n.refs), cmp_ref);
		err = fr_writer__records_begin(w, FR_CPU_NONE, FR_STREAM_SIDEBAND);
		for (size_t i = 0; i < n.nr && !err; i++)
			err = fr_writer__record(w, (const void *)(n.buf + n.refs[i].off));
		if (!err)
			err = fr_writer__records_end(w);
	}
	free(n.pids);
	free(n.buf);
	free(n.refs);
	return err;
}
