/* src/session.c: a recording session: keeps the sideband drained into per-CPU
 * stores, synthesizes COMM records for tasks that predate it, and writes a
 * snapshot (rings copied pinned per CPU, then compressed into a new file).
 */
#include "config.h"
#include "src/session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "ring/record.h"
#include "src/file.h"
#include "symbolize/kallsyms.h"

struct sb_store {
	uint8_t *buf;
	size_t len, cap;
	uint64_t nr, dropped, lost;
};

struct id_map {
	uint64_t id;
	size_t event;
};

struct fr_session {
	struct fr_evlist *el;
	struct fr_session_opts o;
	struct sb_store *sb;       /* per CPU */
	struct sb_store synth;
	struct fr_ring_snapshot *snaps;
	struct id_map *ids;
	size_t nr_ids;
	unsigned seq;
	uint64_t start_ns;
	struct fr_kallsyms *ksyms;  /* NULL when /proc/kallsyms is unreadable */
};

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_id(const void *a, const void *b)
{
	const struct id_map *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int build_id_map(struct fr_session *s)
{
	size_t n = 0;

	for (size_t e = 0; e < fr_evlist__nr_events(s->el); e++) {
		size_t k;

		fr_evlist__ids(s->el, e, &k);
		n += k;
	}
	s->ids = calloc(n ? n : 1, sizeof(*s->ids));
	if (!s->ids)
		return -ENOMEM;
	for (size_t e = 0; e < fr_evlist__nr_events(s->el); e++) {
		size_t k;
		const uint64_t *ids = fr_evlist__ids(s->el, e, &k);

		for (size_t i = 0; i < k; i++)
			s->ids[s->nr_ids++] = (struct id_map){ ids[i], e };
	}
	qsort(s->ids, s->nr_ids, sizeof(*s->ids), cmp_id);
	return 0;
}

int fr_session__new(struct fr_evlist *el, const struct fr_session_opts *o,
		    struct fr_session **out)
{
	struct fr_session *s = calloc(1, sizeof(*s));
	size_t ncpu = fr_evlist__nr_cpus(el);

	if (!s) {
		fr_evlist__delete(el);
		return -ENOMEM;
	}
	s->el = el;
	s->o = *o;
	s->sb = calloc(ncpu, sizeof(*s->sb));
	s->snaps = calloc(ncpu, sizeof(*s->snaps));
	if (!s->sb || !s->snaps || build_id_map(s)) {
		fr_session__delete(s);
		return -ENOMEM;
	}
	s->start_ns = now_ns(CLOCK_MONOTONIC);
	if (fr_kallsyms__load(NULL, NULL, &s->ksyms))
		s->ksyms = NULL;
	*out = s;
	return 0;
}

void fr_session__delete(struct fr_session *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->sb && i < fr_evlist__nr_cpus(s->el); i++)
		free(s->sb[i].buf);
	free(s->sb);
	free(s->synth.buf);
	free(s->snaps);
	free(s->ids);
	fr_kallsyms__delete(s->ksyms);
	fr_evlist__delete(s->el);
	free(s);
}

/* Drop the oldest half of a store (bounded memory until the retained
 * process table replaces this). */
static void sb_trim(struct sb_store *st)
{
	size_t off = 0;

	while (off < st->len / 2) {
		const struct perf_event_header *h = (const void *)(st->buf + off);

		off += h->size;
		st->nr--;
		st->dropped++;
	}
	memmove(st->buf, st->buf + off, st->len - off);
	st->len -= off;
}

static int sb_append(struct sb_store *st, const struct perf_event_header *h, size_t cap)
{
	if (st->len + h->size > cap && st->len)
		sb_trim(st);
	if (st->len + h->size > st->cap) {
		size_t ncap = st->cap ? st->cap * 2 : 65536;
		uint8_t *n;

		while (ncap < st->len + h->size)
			ncap *= 2;
		n = realloc(st->buf, ncap);
		if (!n)
			return -ENOMEM;
		st->buf = n;
		st->cap = ncap;
	}
	memcpy(st->buf + st->len, h, h->size);
	st->len += h->size;
	st->nr++;
	if (h->type == PERF_RECORD_LOST) {
		struct fr_lost l;

		if (!fr_record__lost(h, &l))
			st->lost += l.lost;
	}
	return 0;
}

static int drain_cb(void *ctx, size_t ci, const struct perf_event_header *h)
{
	struct fr_session *s = ctx;

	return sb_append(&s->sb[ci], h, s->o.sb_cap);
}

int fr_session__drain(struct fr_session *s)
{
	return fr_evlist__drain_sideband(s->el, drain_cb, s);
}

/* A COMM record with the sideband's sample_id trailer (TID|TIME). */
static int synth_comm(struct fr_session *s, pid_t pid, pid_t tid, const char *comm,
		      uint64_t time)
{
	uint8_t buf[128] = { 0 };
	struct perf_event_header *h = (void *)buf;
	size_t n = strnlen(comm, 15), body = (n + 1 + 7) & ~(size_t)7;
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)tid };

	h->type = PERF_RECORD_COMM;
	h->size = (uint16_t)(sizeof(*h) + 8 + body + 16);
	memcpy(buf + 8, ids, 8);
	memcpy(buf + 16, comm, n);
	memcpy(buf + 16 + body, ids, 8);
	memcpy(buf + 24 + body, &time, 8);
	return sb_append(&s->synth, h, SIZE_MAX);
}

static int read_comm(const char *path, char *comm, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, comm, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	return 0;
}

static int synth_pid(struct fr_session *s, pid_t pid, uint64_t t)
{
	char path[64], comm[32];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;   /* gone meanwhile */
	while (!err && (de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (de->d_name[0] == '.' || *end || tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/comm", (int)pid, tid);
		if (read_comm(path, comm, sizeof(comm)))
			continue;
		err = synth_comm(s, pid, (pid_t)tid, comm, t);
	}
	closedir(d);
	return err;
}

int fr_session__synthesize(struct fr_session *s, const pid_t *pids, size_t nr)
{
	uint64_t t = now_ns(CLOCK_MONOTONIC);
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (pids) {
		for (size_t i = 0; i < nr && !err; i++)
			err = synth_pid(s, pids[i], t);
		return err;
	}
	d = opendir("/proc");
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		err = synth_pid(s, (pid_t)pid, t);
	}
	closedir(d);
	return err;
}

/* The event a sample-ring record belongs to. */
static const struct fr_event *record_event(const struct fr_session *s,
					   const struct perf_event_header *h)
{
	const struct fr_event *ev0 = fr_evlist__event(s->el, 0);
	struct id_map key, *m;

	if (fr_evlist__nr_events(s->el) == 1 ||
	    fr_record__identifier(h, ev0->attr.sample_type, &key.id))
		return ev0;
	m = bsearch(&key, s->ids, s->nr_ids, sizeof(*s->ids), cmp_id);
	return m ? fr_evlist__event(s->el, m->event) : ev0;
}

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

static void write_meta(struct fr_session *s, struct fr_writer *w, const char *trigger,
		       uint64_t t_mono, bool pinned)
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
	put_meta(w, "target", "%s", s->o.target_desc ? s->o.target_desc : "");
	put_meta(w, "cmdline", "%s", s->o.cmdline ? s->o.cmdline : "");
	put_meta(w, "trigger", "%s", trigger);
	put_meta(w, "record_start_ns", "%llu", (unsigned long long)s->start_ns);
	put_meta(w, "snapshot_time_ns", "%llu", (unsigned long long)t_mono);
	put_meta(w, "realtime_offset_ns", "%lld",
		 (long long)(now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC)));
	put_meta(w, "pinned_copy", "%s", pinned ? "yes" : "no");
}

static int write_events(struct fr_session *s, struct fr_writer *w)
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

/* Note the kernel addresses a sample holds, for the KSYMS blob. */
static void note_kernel_addrs(struct fr_session *s, const struct perf_event_header *h,
			      const struct fr_event *ev)
{
	struct fr_sample smp;

	if (!s->ksyms || h->type != PERF_RECORD_SAMPLE ||
	    fr_record__parse_sample(h, ev->attr.sample_type, ev->attr.sample_regs_user, &smp))
		return;
	if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL && smp.ip)
		fr_kallsyms__note(s->ksyms, smp.ip);
	for (uint64_t i = 0; i < smp.nr_ips; i++) {
		uint64_t a;

		memcpy(&a, &smp.ips[i], sizeof(a));
		if (a >= (uint64_t)PERF_CONTEXT_MAX)
			continue;   /* PERF_CONTEXT_KERNEL/USER markers */
		if (a >= 0xffff800000000000ull)
			fr_kallsyms__note(s->ksyms, a);
	}
}

static int write_ksyms(struct fr_session *s, struct fr_writer *w)
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

/* One CPU's sample stream, oldest first, and its stats. */
static int write_samples(struct fr_session *s, struct fr_writer *w, size_t ci,
			 struct fr_cpu_stat *cs)
{
	const struct fr_ring_snapshot *snap = &s->snaps[ci];
	int err = fr_writer__records_begin(w, (uint32_t)fr_evlist__cpu(s->el, ci),
					   FR_STREAM_SAMPLES);

	for (size_t i = snap->nr; !err && i-- > 0;) {
		const struct perf_event_header *h = fr_ring_snapshot__record(snap, i);
		const struct fr_event *ev = record_event(s, h);
		uint64_t t;

		if (h->type == PERF_RECORD_LOST) {
			struct fr_lost l;

			if (!fr_record__lost(h, &l))
				cs->lost_records += l.lost;
		}
		if (!fr_record__time(h, ev->attr.sample_type, &t) && t) {
			if (!cs->first_time)
				cs->first_time = t;
			cs->last_time = t;
		}
		cs->nr_samples++;
		note_kernel_addrs(s, h, ev);
		err = fr_writer__record(w, h);
	}
	if (!err)
		err = fr_writer__records_end(w);
	cs->raced_bytes = snap->raced;
	cs->flags = (snap->full ? FR_CPU_FULL : 0) | (snap->corrupt ? FR_CPU_CORRUPT : 0);
	return err;
}

static int write_store(struct fr_writer *w, uint32_t cpu, const struct sb_store *st)
{
	size_t off = 0;
	int err = fr_writer__records_begin(w, cpu, FR_STREAM_SIDEBAND);

	while (!err && off < st->len) {
		const struct perf_event_header *h = (const void *)(st->buf + off);

		err = fr_writer__record(w, h);
		off += h->size;
	}
	return err ? err : fr_writer__records_end(w);
}

static int write_file(struct fr_session *s, struct fr_writer *w, const char *trigger,
		      uint64_t t0, bool pinned, struct fr_snapshot_stats *st)
{
	size_t ncpu = fr_evlist__nr_cpus(s->el);
	struct fr_cpu_stat *cs = calloc(ncpu, sizeof(*cs));
	int err;

	if (!cs)
		return -ENOMEM;
	write_meta(s, w, trigger, t0, pinned);
	err = write_events(s, w);
	if (!err)
		err = write_store(w, FR_CPU_NONE, &s->synth);
	st->sideband += s->synth.nr;
	for (size_t ci = 0; ci < ncpu && !err; ci++) {
		cs[ci].cpu = (uint32_t)fr_evlist__cpu(s->el, ci);
		err = write_samples(s, w, ci, &cs[ci]);
		if (!err)
			err = write_store(w, cs[ci].cpu, &s->sb[ci]);
		cs[ci].nr_sideband = s->sb[ci].nr;
		cs[ci].lost_records += s->sb[ci].lost;
		fr_evlist__lost_samples(s->el, ci, &cs[ci].lost_samples);
		st->samples += cs[ci].nr_samples;
		st->sideband += cs[ci].nr_sideband;
		st->lost += cs[ci].lost_records + cs[ci].lost_samples;
		st->raced_bytes += cs[ci].raced_bytes;
	}
	if (!err)
		err = write_ksyms(s, w);
	if (!err)
		err = fr_writer__cpu_stats(w, cs, ncpu);
	free(cs);
	return err;
}

static int make_path(struct fr_session *s, char *path, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if ((size_t)snprintf(path, len, "%s/flightrec-%s-%s-%03u.frec", s->o.outdir, s->o.name,
			     stamp, ++s->seq) >= len)
		return -ENAMETOOLONG;
	return 0;
}

int fr_session__snapshot(struct fr_session *s, const char *trigger, char *path, size_t len,
			 struct fr_snapshot_stats *st)
{
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);
	char part[PATH_MAX];
	struct fr_writer *w = NULL;
	int err, tries = 0;

	memset(st, 0, sizeof(*st));
	fr_session__drain(s);
	err = fr_evlist__snapshot(s->el, s->snaps, &st->pinned);
	if (err)
		return err;
	st->copy_ms = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e6;
	do {
		err = make_path(s, path, len);
		if (!err && (size_t)snprintf(part, sizeof(part), "%s.part", path) >= sizeof(part))
			err = -ENAMETOOLONG;
		if (!err && access(path, F_OK) == 0)
			err = -EEXIST;
		if (!err)
			err = fr_writer__open(part, s->o.zstd_level, &w);
	} while (err == -EEXIST && ++tries < 100);
	if (err)
		return err;
	err = write_file(s, w, trigger, t0, st->pinned, st);
	st->bytes = fr_writer__bytes(w);
	if (err) {
		fr_writer__abort(w);
		return err;
	}
	err = fr_writer__close(w);
	if (!err && rename(part, path))
		err = -errno;
	if (err) {
		unlink(part);
		return err;
	}
	st->total_ms = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e6;
	return 0;
}

struct fr_evlist *fr_session__evlist(const struct fr_session *s)
{
	return s->el;
}
