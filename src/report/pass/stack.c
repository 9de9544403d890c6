/* src/report/pass/stack.c: the report's resolver: feeds sideband records and
 * PROCS blobs to the process model (src/proc) and turns a sample (ip,
 * callchain, or user registers and stack) into symbolized frames, kernel frames
 * first, leaf first; keeps the callchains and thread names already resolved;
 * names the mapping a user address was in (pprof's mappings).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/proc/proctable.h"
#include "src/report/pass/pass.h"
#include "symbolize/strpool.h"
#include "symbolize/unwind.h"

#define MAX_USER_IPS 512
#define COMM_SLOTS 256                  /* direct-mapped thread names */
#define STACK_SLOTS 4096                /* direct-mapped resolved callchains */
#define STACK_MAX_IPS 256               /* longer callchains are resolved each time */
#define STACK_BYTES_MAX (8u << 20)      /* the cached callchains' memory, at most */

/* The frames of one callchain of process pid, valid while the process
 * model's version holds and the sample time is in [tlo, thi): a stack seen
 * again costs a hash, a compare and a copy. */
struct stack_slot {
	uint64_t hash, version, tlo, thi;
	uint64_t id;                        /* fr_rsample.stack_id: new each time it is filled */
	uint64_t *ips;                      /* nr_ips, then the frames (one allocation) */
	struct fr_frame *frames;
	uint32_t pid, nr_ips, nr_frames;
	bool leaf_only;
};

struct comm_slot {                      /* the name of tid over [tlo, thi) at version */
	uint64_t tlo, thi, version;
	const char *comm;                   /* NULL: empty */
	uint32_t tid;
};

struct fr_resolver {
	struct fr_proctable *procs;         /* the process model */
	struct fr_addrspace as;             /* procs, as the symbolizer asks it */
	struct fr_symbolizer *sym;
	struct fr_unwind *unw;
	struct fr_strpool *strs;        /* ":TID" names of unknown threads */
	struct fr_jit *jit;             /* names of JIT code (jit.c) */
	struct fr_frame frames[FR_MAX_FRAMES];
	uint64_t ips[MAX_USER_IPS];
	uint64_t unwind_failures;
	uint64_t kernel_addrs;          /* looked up */
	bool ksyms;
	bool leaf_only;                 /* resolve the first address of a callchain only */
	struct comm_slot comms[COMM_SLOTS];
	struct stack_slot *stacks;          /* STACK_SLOTS, allocated on first use */
	size_t stack_bytes;                 /* held by the cached callchains */
	uint64_t stack_used[STACK_SLOTS / 64]; /* slots holding one: freed without
					       * touching (faulting in) the rest */
	uint64_t span_lo, span_hi;          /* the frames added so far hold over this */
	uint64_t stack_hits, stack_misses;
	uint64_t stack_ids;                 /* the last id given to a slot */
};

/* The PROCS blobs: processes whose sideband the window no longer holds. A
 * blob that does not parse costs its processes' names and symbols only. */
static int load_procs(struct fr_resolver *r, struct fr_reader *rd)
{
	struct fr_procs_batch *b = fr_procs_batch__new();
	int err = b ? 0 : -ENOMEM;

	for (size_t i = 0; !err && i < fr_reader__nr_blobs(rd, FR_BLOB_PROCS); i++) {
		void *data = NULL;
		size_t len = 0;

		err = fr_reader__blob(rd, FR_BLOB_PROCS, i, &data, &len);
		if (!err)
			err = fr_procs_batch__add(b, data, len);
		free(data);
		if (err == -EBADMSG)
			fr_reader__blob_damaged(rd, FR_BLOB_PROCS, i, "malformed payload");
		err = err == -ENOMEM ? err : 0;
	}
	if (!err)
		err = fr_procs_batch__apply(b, r->procs);
	fr_procs_batch__delete(b);
	return err;
}

int fr_resolver__new(struct fr_reader *rd, const struct fr_symbolizer_opts *so,
		     struct fr_resolver **out)
{
	struct fr_resolver *r = calloc(1, sizeof(*r));
	int err = -ENOMEM;

	if (!r || !(r->procs = fr_proctable__new(NULL)) || fr_symbolizer__new(so, &r->sym) ||
	    fr_unwind__new(r->sym, &r->unw) || !(r->strs = fr_strpool__new()) ||
	    fr_jit__new(rd, so ? &(struct fr_jit_opts){ !so->no_demangle, !so->only_given_dirs,
							so->symdirs, so->nr_symdirs }
			: &(struct fr_jit_opts){ true, true, NULL, 0 }, &r->jit))
		goto fail;
	r->as = fr_proctable__addrspace(r->procs);
	for (size_t i = 0; rd && i < fr_reader__nr_blobs(rd, FR_BLOB_KSYMS); i++) {
		void *data = NULL;
		size_t len = 0;

		/* a bad blob costs kernel names, not the report */
		if (fr_reader__blob(rd, FR_BLOB_KSYMS, i, &data, &len))
			continue;
		if (!fr_symbolizer__add_kallsyms(r->sym, data, len))
			r->ksyms = true;
		else
			fr_reader__blob_damaged(rd, FR_BLOB_KSYMS, i, "malformed payload");
		free(data);
	}
	if (rd && fr_reader__nr_blobs(rd, FR_BLOB_VDSO)) {
		void *data = NULL;
		size_t len = 0;

		/* a bad image costs the names of [vdso] frames, not the report */
		if (!fr_reader__blob(rd, FR_BLOB_VDSO, 0, &data, &len))
			fr_symbolizer__add_vdso(r->sym, data, len);
		free(data);
	}
	if (rd && (err = load_procs(r, rd)))
		goto fail;
	*out = r;
	return 0;
fail:
	fr_resolver__delete(r);
	return err;
}

void fr_resolver__delete(struct fr_resolver *r)
{
	if (!r)
		return;
	fr_unwind__delete(r->unw);
	fr_jit__delete(r->jit);
	fr_symbolizer__delete(r->sym);
	fr_proctable__delete(r->procs);
	fr_strpool__delete(r->strs);
	for (size_t w = 0; r->stacks && w < STACK_SLOTS / 64; w++)
		for (uint64_t b = r->stack_used[w]; b; b &= b - 1)
			free(r->stacks[w * 64 + (size_t)__builtin_ctzll(b)].ips);
	free(r->stacks);
	free(r);
}

void fr_resolver__leaf_only(struct fr_resolver *r, bool on)
{
	r->leaf_only = on;
}

struct fr_symbolizer *fr_resolver__symbolizer(struct fr_resolver *r)
{
	return r->sym;
}

uint64_t fr_resolver__unwind_failures(const struct fr_resolver *r)
{
	return r->unwind_failures;
}

void fr_resolver__jit_stats(const struct fr_resolver *r, uint64_t *named, uint64_t *unnamed)
{
	fr_jit__stats(r->jit, named, unnamed);
}

const struct fr_jit *fr_resolver__jit(const struct fr_resolver *r)
{
	return r->jit;
}

bool fr_resolver__missed_ksyms(const struct fr_resolver *r)
{
	return !r->ksyms && r->kernel_addrs;
}

int fr_resolver__mapping(struct fr_resolver *r, uint32_t pid, uint64_t time, uint64_t addr,
			 const struct fr_map **map, const struct fr_dso_id **dso)
{
	const struct fr_map *m = fr_proctable__find(r->procs, pid, time, addr);
	const struct fr_dso_id *d = m ? fr_proctable__dso(r->procs, m->dso) : NULL;

	if (!d)
		return -ENOENT;
	*map = m;
	*dso = d;
	return 0;
}

int fr_resolver__sideband(struct fr_resolver *r, const struct fr_rec *rec)
{
	int err = fr_proctable__record_at(r->procs, rec->h,
					  rec->event ? rec->event->attr.sample_type : 0, rec->time);

	/* a malformed record (or an empty mapping) costs what it would have said */
	return err == -ENOMEM ? err : 0;
}

const char *fr_resolver__comm(struct fr_resolver *r, uint32_t tid, uint64_t time)
{
	struct comm_slot *cs = &r->comms[(tid ^ tid >> 8) & (COMM_SLOTS - 1)];
	uint64_t version = fr_proctable__version(r->procs), lo, hi;
	const char *c;
	char buf[16];

	if (cs->comm && cs->tid == tid && cs->version == version && time >= cs->tlo &&
	    time < cs->thi)
		return cs->comm;
	c = fr_proctable__thread_comm_span(r->procs, tid, time, &lo, &hi);
	if (c) {
		*cs = (struct comm_slot){ lo, hi, version, c, tid };
		return c;
	}
	if (!tid)
		return fr_strpool__str(r->strs, "swapper");   /* the idle task, as perf names it */
	snprintf(buf, sizeof(buf), ":%d", (int)tid);   /* perf: ":-1" for tid -1 */
	return fr_strpool__str(r->strs, buf);
}

uint32_t fr_resolver__pid(const struct fr_resolver *r, uint32_t tid)
{
	return fr_proctable__thread_pid(r->procs, tid);
}

size_t fr_leaf_frames(const struct fr_rsample *s)
{
	size_t i = 0;

	while (i < s->nr_frames && s->frames[i].sym->inlined)
		i++;
	return i < s->nr_frames ? i + 1 : s->nr_frames;
}

/* Append the frames of one address. */
static int add_addr(struct fr_resolver *r, const struct fr_rsample *o, size_t *n, uint64_t addr,
		    bool kernel, bool ret)
{
	int k;

	if (*n >= FR_MAX_FRAMES)
		return 0;
	r->kernel_addrs += kernel;
	if (kernel)
		k = fr_symbolizer__kernel(r->sym, addr, ret, &r->frames[*n], FR_MAX_FRAMES - *n);
	else {
		uint64_t lo, hi;

		k = fr_symbolizer__user_span(r->sym, &r->as, o->pid, o->time, addr, ret,
					     &r->frames[*n], FR_MAX_FRAMES - *n, &lo, &hi);
		if (k == 1 && r->frames[*n].sym->unknown &&
		    fr_jit__name(r->jit, o->pid, ret, &r->frames[*n]))
			return -ENOMEM;
		if (lo > r->span_lo)
			r->span_lo = lo;
		if (hi < r->span_hi)
			r->span_hi = hi;
	}
	if (k < 0)
		return k;
	*n += (size_t)k;
	return 0;
}

/* The span of the mapping lookup of addr narrows the callchain's. */
static void narrow_span(struct fr_resolver *r, const struct fr_rsample *o, uint64_t addr)
{
	uint64_t lo, hi;

	fr_proctable__find_span(r->procs, o->pid, o->time, addr, &lo, &hi);
	if (lo > r->span_lo)
		r->span_lo = lo;
	if (hi < r->span_hi)
		r->span_hi = hi;
}

/* Callchain entries: context markers switch kernel/user; the first address
 * after each marker is where that context was interrupted (no pc-1). With an
 * unwound user stack, the callchain's user part (if any) is skipped. */
static int add_callchain(struct fr_resolver *r, const struct fr_rsample *o,
			 const struct fr_sample *s, bool skip_user, size_t *n)
{
	bool kernel = false, first = true;
	int err = 0;

	for (uint64_t i = 0; i < s->nr_ips && !err; i++) {
		uint64_t a;

		memcpy(&a, &s->ips[i], sizeof(a));
		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = a == (uint64_t)PERF_CONTEXT_KERNEL;
			first = true;
			continue;
		}
		if (!kernel && skip_user)
			continue;
		if (r->leaf_only && *n) {
			/* the files the others are in still count in the notes (and a
			 * cached callchain holds only while they are the same files) */
			if (!kernel) {
				narrow_span(r, o, a);
				err = fr_symbolizer__touch(r->sym, &r->as, o->pid, o->time, a);
			}
			continue;
		}
		err = add_addr(r, o, n, a, kernel, !first);
		first = false;
	}
	return err;
}

static uint64_t hash_ips(uint32_t pid, const struct fr_sample *s)
{
	uint64_t x = 0x9e3779b97f4a7c15ull ^ pid;

	for (uint64_t i = 0; i < s->nr_ips; i++) {
		uint64_t a;

		memcpy(&a, &s->ips[i], sizeof(a));
		x = (x ^ a) * 0xff51afd7ed558ccdull;
		x ^= x >> 32;
	}
	return x;
}

/* add_callchain through the cache of resolved callchains (frames first: *n
 * is 0 on entry). A stack found there is not copied: o->frames points at
 * the cached frames (valid until the next sample). */
static int cached_callchain(struct fr_resolver *r, struct fr_rsample *o,
			    const struct fr_sample *s, size_t *n)
{
	uint64_t h = hash_ips(o->pid, s), version = fr_proctable__version(r->procs);
	size_t ipsz = (size_t)s->nr_ips * sizeof(uint64_t);
	struct stack_slot *sl;
	uint64_t *mem;
	size_t size, old;
	int err;

	if (*n || s->nr_ips > STACK_MAX_IPS ||
	    (!r->stacks && !(r->stacks = calloc(STACK_SLOTS, sizeof(*r->stacks)))))
		return add_callchain(r, o, s, false, n);
	sl = &r->stacks[h & (STACK_SLOTS - 1)];
	if (sl->ips && sl->hash == h && sl->pid == o->pid && sl->nr_ips == s->nr_ips &&
	    sl->leaf_only == r->leaf_only && sl->version == version && o->time >= sl->tlo &&
	    o->time < sl->thi && !memcmp(sl->ips, s->ips, ipsz)) {
		r->stack_hits++;
		if (sl->nr_frames)
			o->frames = sl->frames;
		o->stack_id = sl->id;
		*n = sl->nr_frames;
		return 0;
	}
	r->stack_misses++;
	r->span_lo = 0;
	r->span_hi = UINT64_MAX;
	err = add_callchain(r, o, s, false, n);
	if (err)
		return err;
	size = ipsz + *n * sizeof(*r->frames);
	old = sl->ips ? sl->nr_ips * sizeof(uint64_t) + sl->nr_frames * sizeof(*r->frames) : 0;
	if (r->stack_bytes - old + size > STACK_BYTES_MAX || !(mem = malloc(size)))
		return 0;   /* not kept */
	r->stack_bytes += size - old;
	r->stack_used[(h & (STACK_SLOTS - 1)) / 64] |= 1ull << (h & 63);
	free(sl->ips);
	o->stack_id = ++r->stack_ids;
	*sl = (struct stack_slot){ h, version, r->span_lo, r->span_hi, o->stack_id, mem,
				   (struct fr_frame *)(mem + s->nr_ips), o->pid,
				   (uint32_t)s->nr_ips, (uint32_t)*n, r->leaf_only };
	memcpy(sl->ips, s->ips, ipsz);
	memcpy(sl->frames, r->frames, *n * sizeof(*r->frames));
	return 0;
}

void fr_resolver__cache_stats(const struct fr_resolver *r, uint64_t *hits, uint64_t *misses)
{
	*hits = r->stack_hits;
	*misses = r->stack_misses;
}

static int add_unwound(struct fr_resolver *r, const struct fr_rsample *o,
		       const struct fr_sample *s, const struct perf_event_attr *a, size_t *n)
{
	struct fr_ustack st = { s->regs, a->sample_regs_user, s->regs_abi, s->stack,
				s->stack_dyn_size ? s->stack_dyn_size : s->stack_size };
	int k = fr_unwind__user(r->unw, &r->as, o->pid, o->time, &st, r->ips, MAX_USER_IPS);
	int err = 0;

	if (k <= 0)
		return 0;   /* a kernel thread, or registers it cannot read */
	if (k == 1)
		r->unwind_failures++;
	for (int i = 0; i < k && !err; i++)
		err = add_addr(r, o, n, r->ips[i], false, i > 0);
	return err;
}

int fr_resolver__sample(struct fr_resolver *r, const struct fr_rec *rec,
			const struct fr_sample *s, bool stack, struct fr_rsample *out)
{
	const struct perf_event_attr *a = &rec->event->attr;
	bool unwind = (a->sample_type & PERF_SAMPLE_STACK_USER) && s->regs_abi;
	uint16_t mode = rec->h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	size_t n = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->event = rec->event;
	out->pid = s->pid;
	out->tid = s->tid;
	out->cpu = rec->cpu;
	out->time = rec->time;
	out->period = (a->sample_type & PERF_SAMPLE_PERIOD) ? s->period : 1;
	out->comm = fr_resolver__comm(r, s->tid, rec->time);
	out->raw = s->raw;
	out->raw_size = s->raw_size;
	out->has_stack = (a->sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN)) != 0;
	out->frames = r->frames;
	if (!out->comm)
		return -ENOMEM;
	if (!stack || !out->has_stack)
		return 0;
	if (s->nr_ips && unwind)
		err = add_callchain(r, out, s, unwind, &n);
	else if (s->nr_ips)
		err = cached_callchain(r, out, s, &n);
	else if ((a->sample_type & PERF_SAMPLE_IP) && (!unwind || mode == PERF_RECORD_MISC_KERNEL))
		err = add_addr(r, out, &n, s->ip, mode == PERF_RECORD_MISC_KERNEL, false);
	if (!err && unwind)
		err = add_unwound(r, out, s, a, &n);
	if (!err && !n && (a->sample_type & PERF_SAMPLE_IP))
		err = add_addr(r, out, &n, s->ip, mode == PERF_RECORD_MISC_KERNEL, false);
	out->nr_frames = n;
	/* only where a frame can be counted: no such symbol made, none to count */
	if (fr_jit__nr_syms(r->jit) || fr_symbolizer__nr_jit_syms(r->sym))
		fr_jit__count(r->jit, out->frames, n);
	return err;
}
