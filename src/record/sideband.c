/* src/record/sideband.c: the sideband kept between files (sideband.h): the
 * per-CPU stores of raw records, the synthesized stream, the process table
 * fed from them in time order (a per-command target's exec names filtered),
 * the JIT maps within their memory budget; collected and serialized (PROCS,
 * PERFMAP) on request.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ring/record.h"
#include "src/util.h"
#include "src/proc/jitdump.h"
#include "src/proc/perfmap.h"
#include "src/proc/proctable.h"
#include "src/record/sideband.h"

/* Blocks of SB_BLOCK bytes (a record larger than that gets a block of its
 * own size); a store of a small cap uses blocks of cap / 8, at least 4 KiB. */
#define SB_BLOCK (256u << 10)
#define SB_SPARE 4           /* emptied blocks kept for reuse per store */

struct sb_block {
	struct sb_block *next;
	size_t cap;              /* of data */
	size_t start, len;       /* the records held: data[start, len) */
	size_t last;             /* offset of the newest record */
	uint64_t nr, lost;       /* records held, counts of the LOST records held */
	uint8_t data[];
};

static size_t block_size(size_t cap)
{
	size_t bs = cap / 8;

	return bs > SB_BLOCK ? SB_BLOCK : bs < 4096 ? 4096 : bs;
}

static uint64_t lost_of(const struct perf_event_header *h)
{
	struct fr_lost l;

	return h->type == PERF_RECORD_LOST && !fr_record__lost(h, &l) ? l.lost : 0;
}

/* A file reports the losses of the sideband it holds: what goes, goes
 * from st->lost too. */
static void forget(struct sb_store *st, uint64_t nr, uint64_t lost, size_t bytes)
{
	st->nr -= nr;
	st->dropped += nr;
	st->lost -= lost <= st->lost ? lost : st->lost;
	st->bytes -= bytes;
}

static void recycle(struct sb_store *st, struct sb_block *b)
{
	if (st->nspare < SB_SPARE && b->cap <= SB_BLOCK) {
		b->next = st->spare;
		st->spare = b;
		st->nspare++;
	} else {
		free(b);
	}
}

/* The oldest block goes whole. */
static void drop_head(struct sb_store *st)
{
	struct sb_block *b = st->head;

	forget(st, b->nr, b->lost, b->len - b->start);
	st->head = b->next;
	if (!st->head)
		st->tail = NULL;
	recycle(st, b);
}

/* The oldest records of the oldest block, up to min_bytes of them and then
 * every one older than cutoff (untimed records stop it). */
static void drop_records(struct sb_store *st, size_t min_bytes, uint64_t cutoff,
			 uint64_t sample_type)
{
	struct sb_block *b = st->head;
	size_t gone = 0;

	while (b->start < b->len) {
		const struct perf_event_header *h = (const void *)(b->data + b->start);
		uint64_t t, lost;

		if (gone >= min_bytes && (fr_record__time(h, sample_type, &t) || t >= cutoff))
			break;
		lost = lost_of(h);
		b->lost -= lost <= b->lost ? lost : b->lost;
		forget(st, 1, lost, h->size);
		b->nr--;
		gone += h->size;
		b->start += h->size;
	}
	if (b->start == b->len)
		drop_head(st);
}

static void free_spares(struct sb_store *st)
{
	while (st->spare) {
		struct sb_block *b = st->spare;

		st->spare = b->next;
		free(b);
	}
	st->nspare = 0;
}

/* Drop the records older than cutoff: whole blocks whose newest record is,
 * then within the oldest block left. The spare blocks go too: the store's
 * memory follows the window's sideband, not the largest burst ever seen. */
void fr_sb_store__trim_before(struct sb_store *st, uint64_t cutoff, uint64_t sample_type)
{
	while (st->head) {
		const struct sb_block *b = st->head;
		uint64_t t;

		if (b->start < b->len &&
		    (fr_record__time((const void *)(b->data + b->last), sample_type, &t) ||
		     t >= cutoff))
			break;
		drop_head(st);
	}
	if (st->head)
		drop_records(st, 0, cutoff, sample_type);
	free_spares(st);
}

/* Append a record; beyond cap bytes the oldest go (a block at a time; in a
 * store of one block, half of it): bounded memory, and the process table
 * keeps what those records said. */
int fr_sb_store__append(struct sb_store *st, const struct perf_event_header *h, size_t cap)
{
	struct sb_block *b;
	uint64_t lost = lost_of(h);

	while (st->bytes && st->bytes + h->size > cap) {
		if (st->head != st->tail)
			drop_head(st);
		else
			drop_records(st, st->bytes / 2, 0, 0);
	}
	b = st->tail;
	if (!b || b->len + h->size > b->cap) {
		size_t bs = block_size(cap);

		if (h->size <= bs && st->spare && st->spare->cap >= bs) {
			b = st->spare;
			st->spare = b->next;
			st->nspare--;
		} else {
			bs = h->size > bs ? h->size : bs;
			if (!(b = malloc(sizeof(*b) + bs)))
				return -ENOMEM;
			b->cap = bs;
		}
		b->next = NULL;
		b->start = b->len = b->last = 0;
		b->nr = b->lost = 0;
		if (st->tail)
			st->tail->next = b;
		else
			st->head = b;
		st->tail = b;
	}
	memcpy(b->data + b->len, h, h->size);
	b->last = b->len;
	b->len += h->size;
	b->nr++;
	b->lost += lost;
	st->bytes += h->size;
	st->nr++;
	st->lost += lost;
	return 0;
}

void fr_sb_store__free(struct sb_store *st)
{
	while (st->head)
		drop_head(st);
	free_spares(st);
	memset(st, 0, sizeof(*st));
}

int fr_sb_store__for_each(const struct sb_store *st,
			  int (*cb)(void *ctx, const struct perf_event_header *h), void *ctx)
{
	for (const struct sb_block *b = st->head; b; b = b->next)
		for (size_t off = b->start; off < b->len;) {
			const struct perf_event_header *h = (const void *)(b->data + off);
			int ret = cb(ctx, h);

			if (ret)
				return ret;
			off += h->size;
		}
	return 0;
}

size_t fr_sb_store__mem(const struct sb_store *st)
{
	size_t n = 0;

	for (const struct sb_block *b = st->head; b; b = b->next)
		n += sizeof(*b) + b->cap;
	for (const struct sb_block *b = st->spare; b; b = b->next)
		n += sizeof(*b) + b->cap;
	return n;
}

/* The table records of one drain, before sorting. */
struct pend_ref {
	uint64_t time;
	size_t off;
	bool name;                 /* fed only for a process of the target */
};

struct fr_sideband {
	size_t ncpu, cap;
	uint64_t sample_type;
	struct sb_store *cpus;     /* per CPU */
	struct sb_store synth;     /* COMM records of tasks that predate the recording */
	uint64_t synth_t;          /* their time: the recording's start */
	struct fr_proctable *procs;
	struct fr_perfmaps *perfmaps; /* JIT maps read so far (NULL: no memory for them) */
	uint64_t perfmaps_ns;      /* when they were last read */
	bool jit_seen;             /* some process mapped anonymous executable memory */
	bool jit_full_said;        /* the JIT maps' budget filled: said once */
	struct { uint32_t tid; uint64_t t; } named[256];   /* the newest name record a
	                            * file can hold, by tid % 256: a name learnt later
	                            * is dated after it (fr_sideband__name_now) */
	uint8_t *pend;             /* table records of the drains not fed yet */
	size_t pend_len, pend_cap;
	struct pend_ref *refs;
	size_t nr_refs, refs_cap;
	uint32_t *target;          /* a per-task target's first pids, sorted */
	size_t nr_target;
	bool filter_names;
};

int fr_sideband__new(size_t ncpu, uint64_t sample_type, size_t cap, struct fr_sideband **out)
{
	struct fr_sideband *sb = calloc(1, sizeof(*sb));

	if (!sb)
		return -ENOMEM;
	sb->ncpu = ncpu;
	sb->cap = cap;
	sb->sample_type = sample_type;
	sb->cpus = calloc(ncpu, sizeof(*sb->cpus));
	sb->procs = fr_proctable__new(&fr_proctable__recorder_policy);
	if (!sb->cpus || !sb->procs) {
		fr_sideband__delete(sb);
		return -ENOMEM;
	}
	if (fr_perfmaps__new(&sb->perfmaps))
		sb->perfmaps = NULL;   /* costs JIT names only */
	*out = sb;
	return 0;
}

void fr_sideband__delete(struct fr_sideband *sb)
{
	if (!sb)
		return;
	for (size_t i = 0; sb->cpus && i < sb->ncpu; i++)
		fr_sb_store__free(&sb->cpus[i]);
	free(sb->cpus);
	fr_sb_store__free(&sb->synth);
	fr_proctable__delete(sb->procs);
	fr_perfmaps__delete(sb->perfmaps);
	free(sb->pend);
	free(sb->refs);
	free(sb->target);
	free(sb);
}

/* Memory of no file a JIT runtime writes code into. */
static bool anon_name(const char *path)
{
	return path && (!strncmp(path, "//anon", 6) || !strncmp(path, "[anon", 5) ||
			!strncmp(path, "/memfd:", 7));
}

static int pend(struct fr_sideband *sb, const struct perf_event_header *h, bool name)
{
	uint64_t t = 0;

	if (h->type != PERF_RECORD_COMM && h->type != PERF_RECORD_FORK &&
	    h->type != PERF_RECORD_EXIT && h->type != PERF_RECORD_MMAP2)
		return 0;
	fr_record__time(h, sb->sample_type, &t);
	if (h->type == PERF_RECORD_MMAP2 && !sb->jit_seen) {
		struct fr_mmap2 m;

		sb->jit_seen = !fr_record__mmap2(h, &m) &&
			       (anon_name(m.filename) || fr_jitdump__is_dump_name(m.filename));
	}
	if (fr_grow(&sb->pend, &sb->pend_cap, sb->pend_len + h->size, 1, 65536) ||
	    fr_grow(&sb->refs, &sb->refs_cap, sb->nr_refs + 1, sizeof(*sb->refs), 256))
		return -ENOMEM;
	sb->refs[sb->nr_refs++] = (struct pend_ref){ t, sb->pend_len, name };
	memcpy(sb->pend + sb->pend_len, h, h->size);
	sb->pend_len += h->size;
	return 0;
}

int fr_sideband__pend(struct fr_sideband *sb, const struct perf_event_header *h)
{
	return pend(sb, h, false);
}

int fr_sideband__pend_name(struct fr_sideband *sb, const struct perf_event_header *h)
{
	return pend(sb, h, true);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int fr_sideband__set_target(struct fr_sideband *sb, const pid_t *pids, size_t nr)
{
	uint32_t *v = nr ? malloc(nr * sizeof(*v)) : NULL;

	if (nr && !v)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++)
		v[i] = (uint32_t)pids[i];
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_u32);
	free(sb->target);
	sb->target = v;
	sb->nr_target = nr;
	sb->filter_names = true;
	return 0;
}

bool fr_sideband__in_target(const struct fr_sideband *sb, uint32_t pid, uint64_t time)
{
	const struct fr_proc *p;

	if (!sb->filter_names)
		return true;
	p = fr_proctable__proc_at(sb->procs, pid, time);
	if (p)   /* an image of the pid ended before: another process's now */
		return !p->exit_time || p->exit_time > time;
	return sb->nr_target && bsearch(&pid, sb->target, sb->nr_target, sizeof(pid), cmp_u32);
}

/* A name pended for the target, of a process the table does not know of
 * (by the time order: after its fork) is another process's. */
bool fr_sideband__name_in_target(const struct fr_sideband *sb, const struct perf_event_header *h)
{
	uint64_t t = UINT64_MAX;
	struct fr_comm c;

	if (!sb->filter_names)
		return true;
	fr_record__time(h, sb->sample_type, &t);
	return !fr_record__comm(h, &c) && fr_sideband__in_target(sb, c.pid, t);
}

static int cmp_pend(const void *a, const void *b)
{
	const struct pend_ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Keep the pending records from..nr (sorted, newer than the watermark) for
 * the next feed, packed at the start of the buffer. */
static void keep_pending(struct fr_sideband *sb, size_t from)
{
	size_t n = sb->nr_refs - from, len = 0;
	uint8_t *tmp;

	if (!n) {
		sb->nr_refs = 0;
		sb->pend_len = 0;
		return;
	}
	for (size_t i = from; i < sb->nr_refs; i++)
		len += ((const struct perf_event_header *)(sb->pend + sb->refs[i].off))->size;
	tmp = malloc(len);
	if (!tmp)
		return;     /* kept as they are: the next feed sorts them again */
	len = 0;
	for (size_t i = from; i < sb->nr_refs; i++) {
		const struct perf_event_header *h = (const void *)(sb->pend + sb->refs[i].off);

		memcpy(tmp + len, h, h->size);
		sb->refs[i - from] = (struct pend_ref){ sb->refs[i].time, len, sb->refs[i].name };
		len += h->size;
	}
	memcpy(sb->pend, tmp, len);
	free(tmp);
	sb->nr_refs = n;
	sb->pend_len = len;
}

/* Newer records wait: a CPU's ring read earlier in this drain may still get
 * a record older than them (a FORK read after its child's exec would end the
 * exec's image). */
void fr_sideband__feed(struct fr_sideband *sb, uint64_t watermark)
{
	bool sorted = true;
	size_t i;

	/* one CPU's records are in order already: sort only a mix of CPUs */
	for (i = 1; i < sb->nr_refs && sorted; i++)
		sorted = sb->refs[i - 1].time <= sb->refs[i].time;
	if (!sorted)
		qsort(sb->refs, sb->nr_refs, sizeof(*sb->refs), cmp_pend);
	for (i = 0; i < sb->nr_refs && sb->refs[i].time <= watermark; i++) {
		const struct perf_event_header *h = (const void *)(sb->pend + sb->refs[i].off);
		struct fr_comm c;

		if (sb->refs[i].name && !fr_record__comm(h, &c) && !c.pid && c.comm)
			fr_sideband__name_now(sb, 0, c.tid, c.comm, sb->refs[i].time);   /* an exit */
		else if (!sb->refs[i].name || fr_sideband__name_in_target(sb, h))
			fr_proctable__record_at(sb->procs, h, sb->sample_type, sb->refs[i].time);
	}
	keep_pending(sb, i);
}

void fr_sideband__name_now(struct fr_sideband *sb, uint32_t pid, uint32_t tid, const char *comm,
			   uint64_t time)
{
	const struct fr_pcomm *cur;
	uint64_t from;

	if (!pid && !(pid = fr_proctable__thread_pid(sb->procs, tid)))
		return;   /* a thread the table never saw: nothing to name */
	if (sb->filter_names && !fr_sideband__in_target(sb, pid, time))
		return;
	cur = fr_proctable__thread_newest(sb->procs, tid);
	if (cur && cur->comm && !strcmp(cur->comm, comm))
		return;
	from = cur && cur->time + 1 > sb->synth_t ? cur->time + 1 : sb->synth_t;
	/* after the file's own COMM of its exec (at the exec's end, later than
	 * the table's image start): the report applies that one in time order */
	if (sb->named[tid % 256].tid == tid && sb->named[tid % 256].t + 1 > from)
		from = sb->named[tid % 256].t + 1;
	fr_proctable__late_comm(sb->procs, pid, tid, from < time ? from : time, comm);
}

uint64_t fr_sideband__synth_time(const struct fr_sideband *sb)
{
	return sb->synth_t;
}

const struct fr_proctable *fr_sideband__procs(const struct fr_sideband *sb)
{
	return sb->procs;
}

void fr_sideband__named(struct fr_sideband *sb, const struct perf_event_header *comm)
{
	struct fr_comm c;
	uint64_t t = 0;

	if (fr_record__comm(comm, &c) || fr_record__time(comm, sb->sample_type, &t))
		return;
	sb->named[c.tid % 256].tid = c.tid;
	sb->named[c.tid % 256].t = t;
}

int fr_sideband__store(struct fr_sideband *sb, size_t ci, const struct perf_event_header *h)
{
	return fr_sb_store__append(&sb->cpus[ci], h, sb->cap);
}

struct sb_store *fr_sideband__cpu(struct fr_sideband *sb, size_t ci)
{
	return &sb->cpus[ci];
}

/* A COMM record with the sideband's sample_id trailer (TIME, and TID where
 * the sideband event has it). */
int fr_sideband__synth_comm(struct fr_sideband *sb, uint32_t pid, uint32_t tid,
			    const char *comm, uint64_t time)
{
	uint64_t buf[16];
	int n = fr_record__make_comm(buf, sizeof(buf), pid, tid, comm, 0, sb->sample_type, time);

	if (time > sb->synth_t)
		sb->synth_t = time;
	return n < 0 ? n : fr_sb_store__append(&sb->synth, (const void *)buf, SIZE_MAX);
}

const struct sb_store *fr_sideband__synth(const struct fr_sideband *sb)
{
	return &sb->synth;
}

int fr_sideband__scan_proc(struct fr_sideband *sb, const int *pids, size_t nr)
{
	int err = fr_proctable__scan_proc(sb->procs, pids, nr);

	sb->jit_seen = true;   /* processes from /proc: the tick's first walk finds out */
	return err;
}

size_t fr_sideband__nr_exited(const struct fr_sideband *sb)
{
	return fr_proctable__nr_exited(sb->procs);
}

/* The JIT names of the pids the table dropped: no file can show them. */
static void forget_gone(struct fr_sideband *sb)
{
	size_t n = fr_perfmaps__pids(sb->perfmaps, NULL, 0);
	uint32_t *v = n ? malloc(n * sizeof(*v)) : NULL;

	if (!v)
		return;   /* kept until the next collection */
	n = fr_perfmaps__pids(sb->perfmaps, v, n);
	for (size_t i = 0; i < n; i++)
		if (!fr_proctable__proc_at(sb->procs, v[i], UINT64_MAX))
			fr_perfmaps__forget(sb->perfmaps, v[i]);
	free(v);
}

void fr_sideband__gc(struct fr_sideband *sb, uint64_t before)
{
	if (fr_proctable__gc(sb->procs, before) && sb->perfmaps)
		forget_gone(sb);
}

static int procs_cb(void *ctx, const void *data, size_t len)
{
	return fr_writer__blob(ctx, FR_BLOB_PROCS, data, len);
}

static int perfmap_cb(void *ctx, const void *data, size_t len)
{
	return fr_writer__blob(ctx, FR_BLOB_PERFMAP, data, len);
}

/* Processes that may run JIT code: an executable mapping of no file, or of
 * a jitdump (its runtime maps it so that perf finds it). */
struct jit_pids {
	const struct fr_proctable *pt;
	uint32_t *v;
	const char **dumps;        /* v[i]'s jitdump as the process sees it, or NULL */
	size_t n, cap, dcap;
	bool exited;               /* processes gone too (the file's write) */
	struct fr_perfmaps *pm;    /* the tick's: marks the processes gone */
};

struct jit_maps {
	const struct fr_proctable *pt;
	const char *dump;
	bool anon;
};

static int jit_map(void *ctx, const struct fr_map *m)
{
	struct jit_maps *j = ctx;
	const struct fr_dso_id *d = fr_proctable__dso(j->pt, m->dso);

	if (d && anon_name(d->path))
		j->anon = true;
	else if (d && d->path && !j->dump && fr_jitdump__is_dump_name(d->path))
		j->dump = d->path;
	return j->anon && j->dump;
}

/* Whether image p may run JIT code; *dump: its jitdump, or NULL. */
static bool jit_image(const struct fr_proctable *pt, const struct fr_proc *p, const char **dump)
{
	struct jit_maps j = { pt, NULL, false };

	fr_proctable__proc_maps(pt, p, jit_map, &j);
	*dump = j.dump;
	return j.anon || j.dump;
}

static int jit_add(struct jit_pids *l, uint32_t pid, const char *dump)
{
	if (fr_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v), 64) ||
	    fr_grow(&l->dumps, &l->dcap, l->n + 1, sizeof(*l->dumps), 64))
		return -ENOMEM;
	l->dumps[l->n] = dump;
	l->v[l->n++] = pid;
	return 0;
}

static int jit_pid(void *ctx, const struct fr_proc *p)
{
	struct jit_pids *l = ctx;
	const char *dump;

	if (p->exit_time && l->pm)   /* its JIT names go first past the budget */
		fr_perfmaps__gone(l->pm, p->pid);
	if ((p->exit_time && !l->exited) || (l->n && l->v[l->n - 1] == p->pid) ||
	    !jit_image(l->pt, p, &dump))
		return 0;
	return jit_add(l, p->pid, dump);
}

/* Read on the perf maps and jitdumps of l (a failure costs names). */
static void jit_collect(struct fr_sideband *sb, struct jit_pids *l)
{
	if (fr_perfmap__collect(sb->perfmaps, l->v, l->n))
		return;
	for (size_t i = 0; i < l->n; i++)
		if (l->dumps[i] && fr_perfmap__collect_dump(sb->perfmaps, l->v[i], l->dumps[i]))
			return;
}

static void jit_free(struct jit_pids *l)
{
	free(l->v);
	free(l->dumps);
}

/* Every 500 ms, the perf maps and jitdumps of the live processes with
 * anonymous executable memory or a jitdump are read on: once a process is
 * gone its /proc/PID/root is too, so a file must be read while it runs. */
void fr_sideband__perfmaps_tick(struct fr_sideband *sb, uint64_t now)
{
	struct jit_pids l = { .pt = sb->procs, .pm = sb->perfmaps };
	int err;

	/* no anonymous executable memory seen: nothing to read, no walk */
	if (!sb->perfmaps || !sb->jit_seen || now - sb->perfmaps_ns < 500000000ull)
		return;
	sb->perfmaps_ns = now;
	err = fr_proctable__for_each(sb->procs, jit_pid, &l);

	if (!err && l.n)
		jit_collect(sb, &l);
	else if (!err)
		sb->jit_seen = false;   /* none live now: wait for the next anonymous mapping */
	jit_free(&l);
	if (!sb->jit_full_said) {
		struct fr_perfmap_budget st;

		fr_perfmaps__budget_stats(sb->perfmaps, &st);
		if (st.dropped) {
			fr_info("JIT names: the perf maps and jitdumps of all processes reached "
				"their share of the memory budget (%.1f MiB): the oldest entries are "
				"dropped first, those of exited processes before the others' (%llu "
				"so far, %.1f MiB), so that the newest code stays named",
				(double)st.budget / 1048576, (unsigned long long)st.dropped,
				(double)st.dropped_bytes / 1048576);
			sb->jit_full_said = true;
		}
	}
}

void fr_sideband__set_jit_budget(struct fr_sideband *sb, uint64_t bytes)
{
	if (sb->perfmaps)
		fr_perfmaps__set_budget(sb->perfmaps, bytes);
}

int fr_sideband__write_procs(struct fr_sideband *sb, struct fr_writer *w, const uint32_t *pids,
			     size_t nr)
{
	int err = fr_proctable__serialize(sb->procs, pids, nr, FR_CHUNK_RAW_MAX, procs_cb, w);

	/* the JIT names of the same pids, read on first (the processes gone
	 * too: a map written at exit; a map that cannot be read costs its
	 * names, not the file) */
	if (!err && sb->perfmaps) {
		struct jit_pids l = { .pt = sb->procs, .exited = true };
		int e = pids ? 0 : fr_proctable__for_each(sb->procs, jit_pid, &l);

		for (size_t i = 0; pids && i < nr && !e; i++) {
			const struct fr_proc *p = fr_proctable__proc_at(sb->procs, pids[i], UINT64_MAX);
			const char *dump = NULL;

			if (p)
				jit_image(sb->procs, p, &dump);
			e = jit_add(&l, pids[i], dump);
		}
		if (!e && l.n)
			jit_collect(sb, &l);
		jit_free(&l);
		err = fr_perfmap__encode(sb->perfmaps, pids, nr, FR_CHUNK_RAW_MAX, perfmap_cb, w);
	}
	return err;
}

struct write_args {
	struct fr_writer *w;
	uint64_t cutoff, sample_type;
};

static int write_cb(void *ctx, const struct perf_event_header *h)
{
	struct write_args *a = ctx;
	uint64_t t;

	if (a->cutoff && !fr_record__time(h, a->sample_type, &t) && t < a->cutoff)
		return 0;
	return fr_writer__record(a->w, h);
}

int fr_sb_store__write(struct fr_writer *w, uint32_t cpu, const struct sb_store *st,
			   uint64_t cutoff, uint64_t sample_type)
{
	struct write_args a = { w, cutoff, sample_type };
	int err = fr_writer__records_begin(w, cpu, FR_STREAM_SIDEBAND);

	if (!err)
		err = fr_sb_store__for_each(st, write_cb, &a);
	return err ? err : fr_writer__records_end(w);
}
