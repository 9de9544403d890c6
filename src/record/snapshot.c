/* src/record/snapshot.c: composing a file from the session: meta, events,
 * each CPU's ring streamed chunk by chunk into the file, cut to the window,
 * the sideband stores, the process table of the samples' pids, kernel
 * symbols, the vdso image, the trigger; naming new files.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "ring/record.h"
#include "src/record/internal.h"
#include "src/util.h"

static void put_meta(struct fr_writer *w, const char *k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put_meta(struct fr_writer *w, const char *k, const char *fmt, ...)
{
	char v[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	v[strcspn(v, "\n")] = '\0';
	fr_writer__meta(w, k, v);
}

/* The meta of every file, less pinned_copy (a snapshot knows it only once
 * its rings are streamed). */
static void write_meta(struct fr_session *s, struct fr_writer *w, const char *trigger,
		       uint64_t t_mono)
{
	struct utsname u;
	char host[256] = "";

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	put_meta(w, "flightrec_version", "%s", PACKAGE_VERSION);
	put_meta(w, "kernel_release", "%s", u.release);
	put_meta(w, "machine", "%s", u.machine);
	put_meta(w, "hostname", "%s", host);
	put_meta(w, "clockid", "%d", CLOCK_MONOTONIC);
	put_meta(w, "clock", "%s", "CLOCK_MONOTONIC");
	put_meta(w, "nr_cpus_online", "%zu", fr_evlist__nr_cpus(s->el));
	put_meta(w, "page_size", "%ld", sysconf(_SC_PAGESIZE));
	put_meta(w, "name", "%s", s->o.name);
	put_meta(w, "mode", "%s", s->o.forward ? "forward" : s->keep ? "keep" : "backward");
	put_meta(w, "target", "%s", s->o.target_desc ? s->o.target_desc : "");
	put_meta(w, "cmdline", "%s", s->o.cmdline ? s->o.cmdline : "");
	put_meta(w, "trigger", "%s", trigger);
	put_meta(w, "record_start_ns", "%llu", (unsigned long long)s->start_ns);
	put_meta(w, "recorder_pid", "%d", (int)getpid());
	put_meta(w, "snapshot_time_ns", "%llu", (unsigned long long)t_mono);
	put_meta(w, "realtime_offset_ns", "%lld",
		 (long long)(fr_session_now(CLOCK_REALTIME) - fr_session_now(CLOCK_MONOTONIC)));
	if (s->o.window_ns)
		put_meta(w, "window_time_ns", "%llu", (unsigned long long)s->o.window_ns);
	if (s->keep) {
		put_meta(w, "keep_ns", "%llu", (unsigned long long)s->o.keep_ns);
		put_meta(w, "keep_bytes", "%llu", (unsigned long long)s->o.keep_bytes);
	}
}

void fr_session_write_meta(struct fr_session *s, struct fr_writer *w, const char *trigger,
			   uint64_t t_mono, bool pinned)
{
	write_meta(s, w, trigger, t_mono);
	if (!s->o.forward && !s->keep)
		put_meta(w, "pinned_copy", "%s", pinned ? "yes" : "no");
}

int fr_session_write_events(struct fr_session *s, struct fr_writer *w)
{
	size_t n = fr_evlist__nr_events(s->el);
	const struct fr_event *sb = fr_evlist__sideband_event(s->el);
	struct fr_file_event fe;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		const struct fr_event *ev = fr_evlist__event(s->el, i);
		size_t nr;

		memset(&fe, 0, sizeof(fe));
		fe.index = (uint32_t)i;
		fe.attr = ev->attr;
		fe.name = ev->name;
		fe.format = ev->format;
		fe.format_len = ev->format_len;
		fe.ids = fr_evlist__ids(s->el, i, &nr);
		fe.nr_ids = (uint32_t)nr;
		err = fr_writer__event(w, &fe);
	}
	if (err)
		return err;
	memset(&fe, 0, sizeof(fe));
	fe.index = (uint32_t)n;
	fe.flags = FR_EVENT_SIDEBAND;
	fe.attr = sb->attr;
	fe.name = sb->name;
	return fr_writer__event(w, &fe);
}

/* Note the kernel addresses a decoded sample holds, for the KSYMS blob. */
static void note_kernel_addrs(struct fr_session *s, const struct perf_event_header *h,
			      const struct fr_sample *smp)
{
	if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL && smp->ip)
		fr_kallsyms__note(s->ksyms, smp->ip);
	for (uint64_t i = 0; i < smp->nr_ips; i++) {
		uint64_t a;

		memcpy(&a, &smp->ips[i], sizeof(a));
		if (a >= (uint64_t)PERF_CONTEXT_MAX)
			continue;   /* PERF_CONTEXT_KERNEL/USER markers */
		if (a >= 0xffff800000000000ull)
			fr_kallsyms__note(s->ksyms, a);
	}
}

/* Decode a sample once for what the snapshot needs of it: its pid and, when
 * its event records addresses, the kernel ones. Returns 0 or -errno. */
static int decode_sample(struct fr_session *s, const struct perf_event_header *h,
			 const struct fr_event *ev, struct fr_sample *smp)
{
	int err = fr_record__parse_sample(h, ev->attr.sample_type, ev->attr.sample_regs_user, smp);

	if (!err && s->ksyms &&
	    (ev->attr.sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN)))
		note_kernel_addrs(s, h, smp);
	return err;
}

int fr_session_forward_record(void *ctx, const struct perf_event_header *h, uint64_t *time)
{
	struct fr_session *s = ctx;
	const struct fr_event *ev = fr_session_record_event(s, h);
	struct fr_sample smp;

	if (fr_session_own_record(s, h, ev))
		return 1;
	if (h->type == PERF_RECORD_SAMPLE && s->ksyms &&
	    (ev->attr.sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN)))
		decode_sample(s, h, ev, &smp);
	if (fr_record__time(h, ev->attr.sample_type, time))
		*time = 0;
	return 0;
}

int fr_session_write_ksyms(struct fr_session *s, struct fr_writer *w)
{
	void *data = NULL;
	size_t len = 0;
	int err;

	if (!s->ksyms || fr_kallsyms__serialize(s->ksyms, &data, &len))
		return 0;   /* the report shows raw kernel addresses then */
	err = len > FR_CHUNK_RAW_MAX ? 0 : fr_writer__blob(w, FR_BLOB_KSYMS, data, len);
	free(data);
	return err;
}

/* The pids the written samples came from: the PROCS blob carries those. */
struct pid_set {
	uint32_t *keys;         /* pid + 1; 0 empty */
	size_t cap, nr;
};

static void pid_set_add(struct pid_set *ps, uint32_t pid)
{
	if ((ps->nr + 1) * 2 > ps->cap) {
		struct pid_set n = { calloc(ps->cap ? ps->cap * 2 : 256, sizeof(uint32_t)),
				     ps->cap ? ps->cap * 2 : 256, 0 };

		if (!n.keys)
			return;
		for (size_t i = 0; i < ps->cap; i++)
			if (ps->keys[i])
				pid_set_add(&n, ps->keys[i] - 1);
		free(ps->keys);
		*ps = n;
	}
	for (size_t i = (pid * 2654435761u) & (ps->cap - 1);; i = (i + 1) & (ps->cap - 1)) {
		if (ps->keys[i] == pid + 1)
			return;
		if (!ps->keys[i]) {
			ps->keys[i] = pid + 1;
			ps->nr++;
			return;
		}
	}
}

/* Compact the set into a plain array of pids (in place). */
static size_t pid_set_flatten(struct pid_set *ps)
{
	size_t n = 0;

	for (size_t i = 0; i < ps->cap; i++)
		if (ps->keys[i])
			ps->keys[n++] = ps->keys[i] - 1;
	return n;
}

/* a ring's streamed chunk becomes one RECORDS chunk of the file */
_Static_assert(FR_COPY_CHUNK_MAX == FR_CHUNK_RAW_MAX, "ring chunks are file chunks");

/* One CPU's part of the stream: its chunks are processed and compressed on
 * its copy thread (ring/copy.h), in parallel with the other CPUs'. */
struct cpu_ctx {
	struct fr_writer *app;      /* RECORDS chunks of this CPU's samples */
	struct pid_set pids;
	uint32_t last_pid;          /* the pid added last, plus one (0: none) */
	uint64_t dropped_by_window;
};

struct write_ctx {
	struct fr_session *s;
	struct fr_writer *w;
	uint64_t cutoff;            /* drop samples older than this (--window-time) */
	struct pid_set pids;
	struct fr_snapshot_stats *st;
	struct fr_cpu_stat *cs;     /* per CPU */
	struct cpu_ctx *cpus;       /* per CPU */
	uint64_t app_bytes;         /* written by the appenders */
};

/* The ring could not hold the requested time: say how large it should be. */
/* What -m takes: a power of two pages, at least need bytes, as K, M or G. */
static void ring_size_arg(double need, char *buf, size_t len)
{
	uint64_t sz = (uint64_t)sysconf(_SC_PAGESIZE);

	while ((double)sz < need && sz < (2ull << 30))
		sz <<= 1;
	if (sz >= (1ull << 30))
		snprintf(buf, len, "%lluG", (unsigned long long)(sz >> 30));
	else if (sz >= (1ull << 20))
		snprintf(buf, len, "%lluM", (unsigned long long)(sz >> 20));
	else
		snprintf(buf, len, "%lluK", (unsigned long long)(sz >> 10));
}

static void window_warning(struct write_ctx *c, size_t ci, uint64_t oldest, uint64_t newest,
			   uint64_t n)
{
	const struct fr_ring_stream *rs = &c->s->streams[ci];
	double held = (double)(newest - oldest) / 1e9, want = (double)c->s->o.window_ns / 1e9;
	double need = held > 0 ? (double)rs->len * want / held : 0;
	char size[32];

	if (c->st->warning[0])
		return;
	ring_size_arg(need, size, sizeof(size));
	snprintf(c->st->warning, sizeof(c->st->warning),
		 "CPU %d's ring held %.3f s of the requested %.3f s (%.0f events/s): use -m %s "
		 "or more", fr_evlist__cpu(c->s->el, ci), held, want,
		 held > 0 ? (double)n / held : 0.0, size);
}

/* A sample's pid; its kernel addresses noted when its event records some.
 * Without addresses to note, only the pid is read (a full decode of every
 * sample of a 256 MiB ring was a sixth of the snapshot's CPU time). 0, or
 * -errno when the sample has no pid. */
static int sample_pid(struct fr_session *s, const struct perf_event_header *h,
		      const struct fr_event *ev, uint32_t *pid)
{
	struct fr_sample smp;

	if (!s->ksyms || !(ev->attr.sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN)))
		return fr_record__pid(h, ev->attr.sample_type, pid);
	if (decode_sample(s, h, ev, &smp) || !smp.has_tid)
		return -ENOENT;
	*pid = smp.pid;
	return 0;
}

/* One chunk of CPU ci's sample stream, oldest first (ring/copy.h), on that
 * CPU's copy thread: the records within the window go to the file as one
 * RECORDS chunk (the ring's chunks are the file's size), their stats to
 * c->cs[ci]; touches nothing another CPU's call touches. */
static int samples_chunk(void *ctx, size_t ci, const uint8_t *recs, size_t len, size_t nr)
{
	struct write_ctx *c = ctx;
	struct fr_cpu_stat *cs = &c->cs[ci];
	struct cpu_ctx *cc = &c->cpus[ci];
	int err = fr_writer__records_begin(cc->app, cs->cpu, FR_STREAM_SAMPLES);
	size_t off = 0;

	for (size_t i = 0; i < nr && !err && off < len; i++) {
		const struct perf_event_header *h = (const void *)(recs + off);
		const struct fr_event *ev = fr_session_record_event(c->s, h);
		uint64_t t = 0;

		off += h->size;
		if (fr_session_own_record(c->s, h, ev))
			continue;
		if (!fr_record__time(h, ev->attr.sample_type, &t) && t) {
			if (!c->s->oldest[ci])
				c->s->oldest[ci] = t;
			if (t < c->cutoff) {
				cc->dropped_by_window++;
				continue;
			}
			if (!cs->first_time)
				cs->first_time = t;
			cs->last_time = t;
		}
		if (h->type == PERF_RECORD_LOST) {
			struct fr_lost l;

			if (!fr_record__lost(h, &l))
				cs->lost_records += l.lost;
		} else if (h->type == PERF_RECORD_SAMPLE) {
			uint32_t pid;

			/* runs of one pid are the rule: one set lookup per run */
			if (!sample_pid(c->s, h, ev, &pid) && pid + 1 != cc->last_pid) {
				pid_set_add(&cc->pids, pid);
				cc->last_pid = pid + 1;
			}
		}
		cs->nr_samples++;
		err = fr_writer__record(cc->app, h);
	}
	if (!err)
		err = fr_writer__records_end(cc->app);
	return err;
}

/* An appender per CPU for the stream. */
static int cpus_open(struct write_ctx *c, size_t ncpu)
{
	c->cpus = calloc(ncpu, sizeof(*c->cpus));
	if (!c->cpus)
		return -ENOMEM;
	for (size_t ci = 0; ci < ncpu; ci++) {
		int err = fr_writer__appender_of(c->w, &c->cpus[ci].app);

		if (err)
			return err;
	}
	return 0;
}

/* Fold the CPUs' parts into the file's: chunks into END's count, pids,
 * counts; an appender that dropped a chunk (a failed write) fails the file. */
static int cpus_close(struct write_ctx *c, size_t ncpu)
{
	int ret = 0;

	for (size_t ci = 0; c->cpus && ci < ncpu; ci++) {
		struct cpu_ctx *cc = &c->cpus[ci];
		uint64_t chunks = 0;
		int err;

		if (cc->app) {
			err = fr_writer__dropped(cc->app, NULL, &chunks);
			if (chunks && !ret)
				ret = err ? err : -EIO;
			fr_writer__add_chunks(c->w, fr_writer__chunks(cc->app));
			c->app_bytes += fr_writer__bytes(cc->app);
			err = fr_writer__close(cc->app);
			if (err && !ret)
				ret = err;
		}
		for (size_t i = 0; i < cc->pids.cap; i++)
			if (cc->pids.keys[i])
				pid_set_add(&c->pids, cc->pids.keys[i] - 1);
		free(cc->pids.keys);
		c->st->dropped_by_window += cc->dropped_by_window;
	}
	free(c->cpus);
	c->cpus = NULL;
	return ret;
}

/* After the stream: what CPU ci's ring held, in its stats. */
static void samples_done(struct write_ctx *c, size_t ci)
{
	const struct fr_ring_stream *rs = &c->s->streams[ci];
	struct fr_cpu_stat *cs = &c->cs[ci];

	if (c->s->o.window_ns && rs->full && c->s->oldest[ci] > c->cutoff)
		window_warning(c, ci, c->s->oldest[ci], cs->last_time, cs->nr_samples);
	cs->raced_bytes = rs->raced;
	cs->flags = (rs->full ? FR_CPU_FULL : 0) | (rs->corrupt ? FR_CPU_CORRUPT : 0);
}

uint64_t fr_session_cpu_lost(struct fr_cpu_stat *cs, uint64_t sideband_lost, uint64_t dropped)
{
	uint64_t ring = cs->lost_records > cs->lost_samples ? cs->lost_records : cs->lost_samples;

	cs->lost_records += sideband_lost + dropped;
	return ring + sideband_lost + dropped;
}

static int procs_cb(void *ctx, const void *data, size_t len)
{
	return fr_writer__blob(ctx, FR_BLOB_PROCS, data, len);
}

int fr_session_write_procs(struct fr_session *s, struct fr_writer *w, const uint32_t *pids,
			   size_t nr)
{
	return fr_proctable__serialize(s->procs, pids, nr, FR_CHUNK_RAW_MAX, procs_cb, w);
}

static int write_trigger(struct fr_writer *w, const struct fr_trigger *tr, uint64_t t0)
{
	char buf[1024];
	int n = snprintf(buf, sizeof(buf),
			 "source=%s\ntrigger_time_ns=%llu\nsnapshot_time_ns=%llu\nafter_ns=%llu\n"
			 "coalesced=%u\n", tr->source, (unsigned long long)tr->time,
			 (unsigned long long)t0, (unsigned long long)tr->after_ns, tr->coalesced);

	if (tr->event && n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "event=%s\npid=%u\ntid=%u\ncpu=%u\n",
			      tr->event, tr->pid, tr->tid, tr->cpu);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -EINVAL;
	return fr_writer__blob(w, FR_BLOB_TRIGGER, buf, (size_t)n);
}

/* The vdso image (VDSO blob), so the report can name [vdso] frames: the
 * recorder's own, the same image every process on this kernel maps. Its size
 * is where its section headers or its last PT_LOAD end. */
static int write_vdso(struct fr_writer *w)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Phdr *ph;
	size_t size;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return 0;
	size = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	ph = (const Elf64_Phdr *)((const char *)eh + eh->e_phoff);
	for (size_t i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > size)
			size = (size_t)(ph[i].p_offset + ph[i].p_filesz);
	return size > FR_CHUNK_RAW_MAX ? 0 : fr_writer__blob(w, FR_BLOB_VDSO, eh, size);
}

/* The file: meta, events, the synthesized stream, every CPU's samples
 * streamed from its ring into the file as they are copied (memory:
 * a few chunks per CPU, never a whole ring), then, with the sideband drained
 * (every process a streamed sample names has its COMM/MMAP2 by then), the
 * sideband streams, the process table, symbols, vdso, trigger, CPU stats. */
static int write_file(struct write_ctx *c, const struct fr_trigger *tr, uint64_t t0)
{
	struct fr_session *s = c->s;
	size_t ncpu = fr_evlist__nr_cpus(s->el);
	uint64_t sb_type = fr_evlist__sideband_event(s->el)->attr.sample_type, floor;
	struct fr_snapshot_stats *st = c->st;
	struct fr_cpu_stat *cs = calloc(ncpu, sizeof(*cs));
	int err;

	if (!cs)
		return -ENOMEM;
	c->cs = cs;
	for (size_t ci = 0; ci < ncpu; ci++)
		cs[ci].cpu = (uint32_t)fr_evlist__cpu(s->el, ci);
	memset(s->oldest, 0, ncpu * sizeof(*s->oldest));
	write_meta(s, c->w, tr->source, t0);
	err = fr_session_write_events(s, c->w);
	if (!err)
		err = fr_sb_store__write(c->w, FR_CPU_NONE, &s->synth, 0, sb_type);
	st->sideband += s->synth.nr;
	if (!err && s->keep_view) {   /* --keep: the window's chunks as they are */
		for (size_t ci = 0; ci < ncpu && !err; ci++)
			err = fr_session_keep_samples(s, c->w, ci, c->cutoff, &cs[ci], st);
	} else if (!err) {
		double before = (double)(fr_session_now(CLOCK_MONOTONIC) - t0) / 1e6;
		int cerr;

		err = cpus_open(c, ncpu);
		if (!err) {
			err = fr_evlist__stream(s->el, s->streams, NULL, &st->copy, samples_chunk, c);
			st->pinned = !st->copy.paused && !st->copy.skipped;
			st->copy_ms = before + st->copy.begin_ms;
		}
		cerr = cpus_close(c, ncpu);
		if (!err)
			err = cerr;
	}
	if (!err)
		fr_session_drain(s, false);   /* the file's write collects the table */
	if (!err && !s->keep)
		put_meta(c->w, "pinned_copy", "%s", st->pinned ? "yes" : "no");
	/* sideband older than every CPU's window is kept only by the table */
	floor = s->keep ? fr_keep__floor(s->keep) : fr_session_window_floor(s);
	if (c->cutoff > floor)
		floor = c->cutoff;
	for (size_t ci = 0; ci < ncpu && !err; ci++) {
		if (!s->keep_view)
			samples_done(c, ci);
		fr_sb_store__trim_before(&s->sb[ci], floor, sb_type);
		err = fr_sb_store__write(c->w, cs[ci].cpu, &s->sb[ci], c->cutoff, sb_type);
		cs[ci].nr_sideband = s->sb[ci].nr;
		fr_evlist__lost_samples(s->el, ci, &cs[ci].lost_samples);
		st->samples += cs[ci].nr_samples;
		st->sideband += cs[ci].nr_sideband;
		st->lost += fr_session_cpu_lost(&cs[ci], s->sb[ci].lost,
						s->keep_drops ? s->keep_drops[ci] : 0);
		st->raced_bytes += cs[ci].raced_bytes;
		if (cs[ci].flags & FR_CPU_FULL) {   /* the kernel overwrote older records */
			st->wrapped_cpus++;
			if (cs[ci].first_time > st->kept_from_ns)
				st->kept_from_ns = cs[ci].first_time;
		}
	}
	st->recorded_from_ns = s->start_ns;
	st->recorded_to_ns = t0;
	if (!err)
		err = fr_session_write_procs(s, c->w, c->pids.keys, pid_set_flatten(&c->pids));
	if (!err)
		err = fr_session_write_ksyms(s, c->w);
	if (!err)
		err = write_vdso(c->w);
	if (!err)
		err = write_trigger(c->w, tr, t0);
	if (!err)
		err = fr_writer__cpu_stats(c->w, cs, ncpu);
	if (floor)
		fr_proctable__gc(s->procs, floor);
	free(cs);
	c->cs = NULL;
	return err;
}

int fr_session_make_path(struct fr_session *s, const char *suffix, char *path, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if ((size_t)snprintf(path, len, "%s/flightrec-%s-%s-%03u%s", s->o.outdir, s->o.name,
			     stamp, ++s->seq, suffix) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* The rename is durable only once the directory is on disk too. */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* A new file that does not exist yet: name it, open it O_EXCL (retrying
 * with the next sequence number if a file of that name exists). */
static int open_new(struct fr_session *s, char *path, size_t len, char *part, size_t plen,
		    struct fr_writer **w)
{
	int err, tries = 0;

	do {
		err = fr_session_make_path(s, ".frec", path, len);
		if (!err && (size_t)snprintf(part, plen, "%s.part", path) >= plen)
			err = -ENAMETOOLONG;
		if (!err && access(path, F_OK) == 0)
			err = -EEXIST;
		if (!err)
			err = fr_writer__open(part, s->o.zstd_level, w);
	} while (err == -EEXIST && ++tries < 100);
	return err;
}

/* Keep the newest max_files snapshots: every snapshot passes here, the
 * loop's and the final one alike. */
static void rotate(struct fr_session *s, const char *path)
{
	char **n = realloc(s->files, (s->nr_files + 1) * sizeof(*n));

	if (!n)
		return;
	s->files = n;
	s->files[s->nr_files] = strdup(path);
	if (s->files[s->nr_files])
		s->nr_files++;
	while (s->o.max_files && s->nr_files > s->o.max_files) {
		if (unlink(s->files[0]) && errno != ENOENT)
			fr_err(s->files[0], "rotation: %s", strerror(errno));
		free(s->files[0]);
		memmove(s->files, s->files + 1, (s->nr_files - 1) * sizeof(*s->files));
		s->nr_files--;
	}
}

int fr_session__snapshot(struct fr_session *s, const struct fr_trigger *tr, char *path,
			 size_t len, struct fr_snapshot_stats *st)
{
	struct write_ctx c = { .s = s, .st = st };
	char part[PATH_MAX];
	uint64_t t0;
	int err;

	memset(st, 0, sizeof(*st));
	if (s->o.forward)
		return -EOPNOTSUPP;
	/* the copy threads note kernel addresses in it: the first snapshot
	 * waits for the load as it waited when the loop did it, before its clock */
	fr_session__load_ksyms(s);
	t0 = fr_session_now(CLOCK_MONOTONIC);
	/* --keep: the readers synced, the window's chunks held; the file's
	 * write drains the sideband after the samples (write_file) */
	if (s->keep) {
		err = fr_session_keep_begin(s);
		if (err)
			return err;
		st->copy_ms = (double)(fr_session_now(CLOCK_MONOTONIC) - t0) / 1e6;
	}
	if (s->o.window_ns && t0 > s->o.window_ns)
		c.cutoff = t0 - s->o.window_ns;
	err = open_new(s, path, len, part, sizeof(part), &c.w);
	if (!err)
		err = write_file(&c, tr, t0);
	if (s->keep_view)
		fr_session_keep_end(s);
	if (err && !c.w)
		return err;
	free(c.pids.keys);
	st->bytes = fr_writer__bytes(c.w) + c.app_bytes;
	if (err) {
		fr_writer__abort(c.w);
		return err;
	}
	err = fr_writer__close(c.w);
	if (!err && rename(part, path))
		err = -errno;
	if (err) {
		unlink(part);
		return err;
	}
	sync_dir(s->o.outdir);
	rotate(s, path);
	st->total_ms = (double)(fr_session_now(CLOCK_MONOTONIC) - t0) / 1e6;
	return 0;
}

/* forward_file.c's files count toward --max-files the same way */
void fr_session_rotate(struct fr_session *s, const char *path)
{
	rotate(s, path);
}
