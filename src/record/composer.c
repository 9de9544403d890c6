/* src/record/composer.c: the one composer of every file a recording writes,
 * whatever its source: naming (flightrec-NAME-STAMP-SEQ.frec: a snapshot
 * unnamed (O_TMPFILE) and linked when complete; a streamed file under its
 * name, or NAME.frec.part renamed under --switch-output), header, meta with
 * the clock pairs and CPUs' offline times, events, the sideband streams with
 * the synthesized thread names, the PROCS/PERFMAP, KSYMS, VDSO and TRIGGER
 * blobs, per-CPU stats, END, the directory sync and --max-files. The samples
 * come from the source (session_internal.h), seen only through its functions.
 */
#include "config.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "src/file/clock.h"
#include "src/record/session_internal.h"
#include "src/util.h"

struct fr_composer {
	struct fr_session *s;
	struct fr_writer *w;        /* header, meta, events, blobs, END */
	int fd;                     /* streaming: the O_APPEND file, else -1 */
	int tmp_fd;                 /* a snapshot in an O_TMPFILE, linked at final when complete, else -1 */
	bool streaming;
	bool ksyms_done;            /* the KSYMS blob is written */
	uint64_t t0;                /* when it began (CLOCK_MONOTONIC) */
	uint64_t cutoff;            /* samples and sideband older than this left out (--window-time) */
	struct fr_streams out;      /* what the source's streams put in */
	uint64_t app_chunks, app_bytes; /* of the sample appenders closed */
	struct fr_writer **sbw;     /* streaming: per CPU sideband appenders */
	uint64_t *sb_nr, *sb_lost;  /* streaming: per CPU sideband counts */
	char path[4096];            /* the file as written */
	char final[4096];           /* its name once complete ("": path is it) */
};

void fr_composer__meta(struct fr_composer *c, const char *k, const char *fmt, ...)
{
	char v[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	v[strcspn(v, "\n")] = '\0';
	fr_writer__meta(c->w, k, v);
}

/* /etc/machine-id (32 hex digits, systemd's host id) into id: false where
 * there is none or it is not that. */
static bool machine_id(char id[33])
{
	char buf[40];
	int fd = open("/etc/machine-id", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;

	if (fd >= 0)
		close(fd);
	if (n < 32 || (n > 32 && buf[32] != '\n'))
		return false;
	for (int i = 0; i < 32; i++)
		if (!isxdigit((unsigned char)buf[i]))
			return false;
	memcpy(id, buf, 32);
	id[32] = '\0';
	return true;
}

/* The meta of every file; the source adds its own. */
static void write_meta(struct fr_composer *c, const char *trigger)
{
	struct fr_session *s = c->s;
	struct utsname u;
	char host[256] = "", id[33];

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	fr_composer__meta(c, "flightrec_version", "%s", PACKAGE_VERSION);
	fr_composer__meta(c, "kernel_release", "%s", u.release);
	fr_composer__meta(c, "machine", "%s", u.machine);
	fr_composer__meta(c, "hostname", "%s", host);
	if (machine_id(id))
		fr_composer__meta(c, "machine_id", "%s", id);
	fr_composer__meta(c, "clockid", "%d", CLOCK_MONOTONIC);
	fr_composer__meta(c, "clock", "%s", "CLOCK_MONOTONIC");
	fr_composer__meta(c, "nr_cpus_online", "%zu", fr_evlist__nr_opened(s->el));
	fr_composer__meta(c, "page_size", "%ld", sysconf(_SC_PAGESIZE));
	fr_composer__meta(c, "name", "%s", s->o.name);
	fr_composer__meta(c, "mode", "%s", s->src->ops->name);
	/* where the COMMs are: the sample rings with the name tracepoints, else
	 * the sideband ring (doc/recording.md) */
	fr_composer__meta(c, "comms", "%s", s->names.on ? "sample rings" : "sideband ring");
	fr_composer__meta(c, "target", "%s", s->o.target_desc ? s->o.target_desc : "");
	fr_composer__meta(c, "cmdline", "%s", s->o.cmdline ? s->o.cmdline : "");
	fr_composer__meta(c, "trigger", "%s", trigger);
	if (s->o.offcpu_thresh_ns) {
		fr_composer__meta(c, "offcpu_thresh_ns", "%llu",
				  (unsigned long long)s->o.offcpu_thresh_ns);
		fr_composer__meta(c, "offcpu_stack_rate", "%u", s->o.offcpu_stack_rate);
	}
	fr_composer__meta(c, "record_start_ns", "%llu", (unsigned long long)s->start_ns);
	fr_composer__meta(c, "recorder_pid", "%d", (int)getpid());
	fr_composer__meta(c, "snapshot_time_ns", "%llu", (unsigned long long)c->t0);
	fr_composer__meta(c, "realtime_offset_ns", "%lld",
			  (long long)(fr_session_now(CLOCK_REALTIME) -
				      fr_session_now(CLOCK_MONOTONIC)));
	/* the wall clock's pairs: the recorder's start, and now (a forward or
	 * --keep file's finish takes it again: the last one counts) */
	fr_clock__put_meta(c->w, FR_META_CLOCK_START, &s->clock_start);
	fr_clock__put_meta(c->w, FR_META_CLOCK_SNAPSHOT, NULL);
	if (s->o.window_ns)
		fr_composer__meta(c, "window_time_ns", "%llu", (unsigned long long)s->o.window_ns);
	if (s->src->ops->meta)
		s->src->ops->meta(s->src, c);
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

static int write_trigger(struct fr_writer *w, const struct fr_trigger *tr, uint64_t t_snap)
{
	char buf[1536];
	int n = snprintf(buf, sizeof(buf),
			 "source=%s\ntrigger_time_ns=%llu\nsnapshot_time_ns=%llu\nafter_ns=%llu\n"
			 "coalesced=%u\n", tr->source, (unsigned long long)tr->time,
			 (unsigned long long)t_snap, (unsigned long long)tr->after_ns, tr->coalesced);

	if (tr->event && n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "event=%s\npid=%u\ntid=%u\ncpu=%u\n",
			      tr->event, tr->pid, tr->tid, tr->cpu);
	if (tr->end_event && n > 0 && (size_t)n < sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "end_event=%s\nbegin_time_ns=%llu\n"
			      "end_time_ns=%llu\nlatency_ns=%llu\n", tr->end_event,
			      (unsigned long long)tr->begin, (unsigned long long)tr->end,
			      (unsigned long long)(tr->end - tr->begin));
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

int fr_composer__ksyms(struct fr_composer *c)
{
	void *data = NULL;
	size_t len = 0;
	int err;

	if (c->ksyms_done)
		return 0;
	c->ksyms_done = true;
	if (!c->s->ksyms || fr_kallsyms__serialize(c->s->ksyms, &data, &len))
		return 0;   /* the report shows raw kernel addresses then */
	err = len > FR_CHUNK_RAW_MAX ? 0 : fr_writer__blob(c->w, FR_BLOB_KSYMS, data, len);
	free(data);
	return err;
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

/* Keep the newest --max-files files: every completed file passes here. */
static void max_files(struct fr_session *s, const char *path)
{
	if (fr_grow(&s->files, &s->files_cap, s->nr_files + 1, sizeof(*s->files), 16))
		return;
	s->files[s->nr_files] = strdup(path);
	if (s->files[s->nr_files])
		s->nr_files++;
	while (s->o.max_files && s->nr_files > s->o.max_files) {
		if (unlink(s->files[0]) && errno != ENOENT)
			fr_err(s->files[0], "--max-files: %s", strerror(errno));
		free(s->files[0]);
		memmove(s->files, s->files + 1, (s->nr_files - 1) * sizeof(*s->files));
		s->nr_files--;
	}
}

/* A new file's name in outdir: flightrec-NAME-STAMP-SEQ.frec. */
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

/* A snapshot's file unnamed (O_TMPFILE in the output directory), given its
 * name when complete: a recorder killed while it writes leaves nothing. The
 * writer owns fd; tmp_fd is kept to link it. Where the file system or a
 * missing /proc refuses, the caller falls back to NAME.frec.part. */
static int open_tmpfile(struct fr_composer *c)
{
	int fd, keep, err;

	if (access("/proc/self/fd", X_OK))
		return -errno;
	fd = open(c->s->o.outdir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	keep = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	err = keep < 0 ? -errno : fr_writer__fdopen(fd, c->s->o.zstd_level, &c->w);
	if (err) {
		close(fd);
		if (keep >= 0)
			close(keep);
		return err;
	}
	c->tmp_fd = keep;
	c->path[0] = '\0';
	return 0;
}

/* The complete snapshot under its name (through /proc, which open_tmpfile
 * found: no privilege needed); -EEXIST if the name was taken. */
static int link_tmpfile(struct fr_composer *c)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", c->tmp_fd);
	return linkat(AT_FDCWD, proc, AT_FDCWD, c->final, AT_SYMLINK_FOLLOW) ? -errno : 0;
}

/* Name and create the file O_EXCL (a name taken: the next sequence number):
 * a snapshot unnamed until complete (open_tmpfile) or NAME.frec.part,
 * renamed when complete; NAME.frec itself for a streamed file without
 * --switch-output. */
static int create_file(struct fr_composer *c)
{
	struct fr_session *s = c->s;
	bool in_place = c->streaming && !s->o.switch_output;
	int tries = 0, err;

	do {
		err = make_path(s, c->final, sizeof(c->final));
		if (!err && (size_t)snprintf(c->path, sizeof(c->path), in_place ? "%s" : "%s.part",
					     c->final) >= sizeof(c->path))
			err = -ENAMETOOLONG;
		if (!err && !in_place && !access(c->final, F_OK))
			err = -EEXIST;
		if (!err && c->streaming) {
			c->fd = open(c->path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
			err = c->fd < 0 ? -errno : 0;
		} else if (!err && open_tmpfile(c)) {
			err = fr_writer__open(c->path, s->o.zstd_level, &c->w);
		}
	} while (err == -EEXIST && ++tries < 100);
	if (err)
		c->path[0] = '\0';
	if (in_place)
		c->final[0] = '\0';
	return err;
}

/* Streaming: the main writer and one sideband appender per CPU, each on a
 * dup of the O_APPEND fd. */
static int open_streaming(struct fr_composer *c, size_t ncpu)
{
	int fd = dup(c->fd), err;

	if (fd < 0)
		return -errno;
	err = fr_writer__fdopen(fd, c->s->o.zstd_level, &c->w);
	if (err) {
		close(fd);
		return err;
	}
	c->sbw = calloc(ncpu, sizeof(*c->sbw));
	c->sb_nr = calloc(ncpu, sizeof(*c->sb_nr));
	c->sb_lost = calloc(ncpu, sizeof(*c->sb_lost));
	return c->sbw && c->sb_nr && c->sb_lost ? 0 : -ENOMEM;
}

/* CPU index ci's sideband stream in a streamed file. */
static int begin_sideband_cpu(struct fr_composer *c, size_t ci)
{
	int fd = dup(c->fd), err;

	if (fd < 0)
		return -errno;
	err = fr_writer__appender(fd, c->s->o.zstd_level, &c->sbw[ci]);
	if (err) {
		close(fd);
		return err;
	}
	return fr_writer__records_begin(c->sbw[ci], c->out.cs[ci].cpu, FR_STREAM_SIDEBAND);
}

/* The CPUs recorded now; one that comes online later gets its stream with
 * its first record (fr_composer__sideband). */
static int begin_sideband(struct fr_composer *c, size_t ncpu)
{
	int err = 0;

	for (size_t ci = 0; ci < ncpu && !err; ci++)
		if (fr_evlist__cpu_opened(c->s->el, ci))
			err = begin_sideband_cpu(c, ci);
	return err;
}

int fr_composer__open(struct fr_session *s, bool streaming, const char *trigger, uint64_t t0,
		      struct fr_composer **out)
{
	size_t ncpu = fr_evlist__nr_cpus(s->el);
	uint64_t sb_type = fr_evlist__sideband_event(s->el)->attr.sample_type;
	struct fr_composer *c = calloc(1, sizeof(*c));
	int err;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->s = s;
	c->fd = -1;
	c->tmp_fd = -1;
	c->streaming = streaming;
	c->t0 = t0;
	c->out.cs = calloc(ncpu, sizeof(*c->out.cs));
	c->out.drops = calloc(ncpu, sizeof(*c->out.drops));
	err = c->out.cs && c->out.drops ? create_file(c) : -ENOMEM;
	for (size_t ci = 0; !err && ci < ncpu; ci++)
		c->out.cs[ci].cpu = (uint32_t)fr_evlist__cpu(s->el, ci);
	if (!err && streaming)
		err = open_streaming(c, ncpu);
	if (!err) {
		write_meta(c, trigger);
		err = write_events(s, c->w);
	}
	if (!err)
		err = fr_sb_store__write(c->w, FR_CPU_NONE, fr_sideband__synth(s->sb), 0, sb_type);
	if (!err && streaming)
		err = begin_sideband(c, ncpu);
	if (err) {
		fr_composer__discard(c);
		return err;
	}
	*out = c;
	return 0;
}

int fr_composer__appender(struct fr_composer *c, struct fr_writer **app)
{
	return fr_writer__appender_of(c->w, app);
}

int fr_composer__meta_now(struct fr_composer *c, const char *key, const char *value)
{
	struct fr_writer *app;
	int err = fr_composer__appender(c, &app);

	if (err)
		return err;
	err = fr_writer__meta(app, key, value);
	if (!err)
		err = fr_writer__meta_flush(app);
	return err ? (fr_composer__appender_close(c, app), err)
		   : fr_composer__appender_close(c, app);
}

int fr_composer__appender_close(struct fr_composer *c, struct fr_writer *app)
{
	uint64_t chunks = 0;
	int ret = 0, err;

	if (!app)
		return 0;
	err = fr_writer__dropped(app, NULL, &chunks);
	if (chunks)
		ret = err ? err : -EIO;
	c->app_chunks += fr_writer__chunks(app);
	c->app_bytes += fr_writer__bytes(app);
	err = fr_writer__close(app);
	return ret ? ret : err;
}

int fr_composer__sideband(struct fr_composer *c, size_t ci, const struct perf_event_header *h)
{
	if (h->type == PERF_RECORD_LOST) {
		struct fr_lost l;

		if (!fr_record__lost(h, &l))
			c->sb_lost[ci] += l.lost;
	}
	c->sb_nr[ci]++;
	if (!c->sbw[ci]) {
		int err = begin_sideband_cpu(c, ci);

		if (err)
			return err;
	}
	return fr_writer__record(c->sbw[ci], h);
}

int fr_composer__flush(struct fr_composer *c)
{
	int err = 0;

	for (size_t ci = 0; c->sbw && ci < fr_evlist__nr_cpus(c->s->el) && !err; ci++)
		err = c->sbw[ci] ? fr_writer__flush(c->sbw[ci]) : 0;
	return err;
}

uint64_t fr_composer__size(const struct fr_composer *c)
{
	struct stat sb;

	if (c->fd >= 0)
		return fstat(c->fd, &sb) ? 0 : (uint64_t)sb.st_size;
	return fr_writer__bytes(c->w) + c->app_bytes;
}

/* A CPU's losses: the sample ring's LOST records and the events'
 * PERF_FORMAT_LOST counters count the same drops (the larger is right);
 * sideband drops and records refused on the way come on top, folded into
 * cs->lost_records as the file reports them. */
static uint64_t cpu_lost(struct fr_cpu_stat *cs, uint64_t sideband_lost, uint64_t dropped)
{
	uint64_t ring = cs->lost_records > cs->lost_samples ? cs->lost_records : cs->lost_samples;

	cs->lost_records += sideband_lost + dropped;
	return ring + sideband_lost + dropped;
}

/* One sideband stream per CPU: the streamed ones ended, or the stores
 * written (trimmed first to what some window still shows: older sideband is
 * kept only by the table); the counts into the CPU stats and st. */
static int sideband_streams(struct fr_composer *c, uint64_t floor, struct fr_snapshot_stats *st)
{
	struct fr_session *s = c->s;
	uint64_t sb_type = fr_evlist__sideband_event(s->el)->attr.sample_type;
	int err = 0, e;

	for (size_t ci = 0; ci < fr_evlist__nr_cpus(s->el); ci++) {
		struct fr_cpu_stat *cs = &c->out.cs[ci];
		uint64_t lost;

		if (c->streaming) {
			uint64_t dropped = 0;

			if (c->sbw[ci]) {
				e = fr_writer__records_end(c->sbw[ci]);
				err = err ? err : e;
				fr_writer__dropped(c->sbw[ci], &dropped, NULL);
				c->app_chunks += fr_writer__chunks(c->sbw[ci]);
				fr_writer__close(c->sbw[ci]);
				c->sbw[ci] = NULL;
			}
			cs->nr_sideband += c->sb_nr[ci];
			lost = c->sb_lost[ci] + dropped;
		} else {
			struct sb_store *store = fr_sideband__cpu(s->sb, ci);

			fr_sb_store__trim_before(store, floor, sb_type);
			if (!err)
				err = fr_sb_store__write(c->w, cs->cpu, store, c->cutoff, sb_type);
			cs->nr_sideband += store->nr;   /* and the sample ring's own */
			lost = store->lost;
		}
		st->samples += cs->nr_samples;
		st->sideband += cs->nr_sideband;
		st->lost += cpu_lost(cs, lost, c->out.drops[ci]);
		st->raced_bytes += cs->raced_bytes;
		if (cs->flags & FR_CPU_FULL) {   /* older records were overwritten or evicted */
			st->wrapped_cpus++;
			if (cs->first_time > st->kept_from_ns)
				st->kept_from_ns = cs->first_time;
		}
	}
	return err;
}

static void free_composer(struct fr_composer *c)
{
	for (size_t ci = 0; c->sbw && ci < fr_evlist__nr_cpus(c->s->el); ci++)
		if (c->sbw[ci])
			fr_writer__close(c->sbw[ci]);
	if (c->fd >= 0)
		close(c->fd);
	if (c->tmp_fd >= 0)
		close(c->tmp_fd);
	free(c->sbw);
	free(c->sb_nr);
	free(c->sb_lost);
	free(c->out.cs);
	free(c->out.drops);
	free(c->out.pids);
	free(c->out.comm_tids);
	free(c);
}

int fr_composer__finish(struct fr_composer *c, const struct fr_trigger *tr, uint64_t t_snap,
			char *path, size_t len, struct fr_snapshot_stats *st)
{
	struct fr_session *s = c->s;
	const char *name = c->final[0] ? c->final : c->path;
	uint64_t floor = 0;
	struct stat sb;
	int err, e;

	if (!c->streaming)
		floor = c->cutoff > c->out.floor ? c->cutoff : c->out.floor;
	st->sideband += fr_sideband__synth(s->sb)->nr;
	err = sideband_streams(c, floor, st);
	st->recorded_from_ns = s->start_ns;
	st->recorded_to_ns = t_snap;
	fr_writer__add_chunks(c->w, c->app_chunks + c->out.chunks);
	if (!err)   /* the CPUs' times offline so far */
		fr_hotplug__meta(s->hp, c);
	if (!err && !c->streaming)   /* each thread's name, whatever the rings overwrote */
		err = fr_session_thread_names(s, c->w, &c->out, s->names.on);
	if (!err)
		err = fr_sideband__write_procs(s->sb, c->w, c->out.pids, c->out.nr_pids);
	if (!err)
		err = fr_composer__ksyms(c);
	if (!err)
		err = write_vdso(c->w);
	if (!err && c->streaming)
		err = fr_clock__put_meta(c->w, FR_META_CLOCK_SNAPSHOT, NULL);
	if (!err)
		err = write_trigger(c->w, tr, t_snap);
	if (!err)
		err = fr_writer__cpu_stats(c->w, c->out.cs, fr_evlist__nr_cpus(s->el));
	if (floor)   /* the file's write collects the table */
		fr_sideband__gc(s->sb, floor);
	e = err ? (fr_writer__abort(c->w), err) : fr_writer__close(c->w);
	err = err ? err : e;
	c->w = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	if (!err && c->tmp_fd >= 0)
		err = link_tmpfile(c);
	else if (!err && c->final[0] && rename(c->path, c->final))
		err = -errno;
	if (err && !c->streaming && c->path[0])
		unlink(c->path);   /* a failed snapshot leaves nothing */
	/* a streamed file that failed stays as written: it reads up to its
	 * last good chunk */
	snprintf(path, len, "%s", err && c->path[0] ? c->path : name);
	if (!stat(path, &sb))
		st->bytes = (uint64_t)sb.st_size;
	if (!err) {
		if (c->final[0])
			sync_dir(s->o.outdir);
		max_files(s, name);
	}
	free_composer(c);
	return err;
}

void fr_composer__discard(struct fr_composer *c)
{
	if (!c)
		return;
	if (c->w)
		fr_writer__abort(c->w);
	if (c->path[0])
		unlink(c->path);
	free_composer(c);
}

void fr_composer__abandon(struct fr_composer *c)
{
	if (!c)
		return;
	c->path[0] = '\0';
	fr_composer__discard(c);
}

uint64_t fr_composer__t0(const struct fr_composer *c)
{
	return c->t0;
}

uint64_t fr_composer__cutoff(const struct fr_composer *c)
{
	return c->cutoff;
}

const char *fr_composer__path(const struct fr_composer *c)
{
	return c->path;
}

bool fr_composer__unlinked(const struct fr_composer *c)
{
	struct stat sb;

	return c->fd >= 0 && !fstat(c->fd, &sb) && !sb.st_nlink;
}

int fr_composer__raw_chunk(struct fr_composer *c, const void *data, size_t len)
{
	return fr_writer__raw_chunk(c->w, data, len);
}

int fr_composer__take_streams(struct fr_composer *c, struct fr_snapshot_stats *st)
{
	struct fr_session *s = c->s;
	int err = s->src->ops->stream_into(s->src, c, &c->out, st), e;

	e = fr_session__drain(s);
	err = err ? err : e;
	e = fr_composer__ksyms(c);
	return err ? err : e;
}

int fr_composer__snapshot(struct fr_session *s, const struct fr_trigger *tr, uint64_t t0,
			  char *path, size_t len, struct fr_snapshot_stats *st)
{
	struct fr_composer *c;
	int err = fr_composer__open(s, false, tr->source, t0, &c);

	if (err)
		return err;
	if (s->o.window_ns && t0 > s->o.window_ns)
		c->cutoff = t0 - s->o.window_ns;
	err = fr_composer__take_streams(c, st);
	if (err) {
		fr_composer__discard(c);
		return err;
	}
	err = fr_composer__finish(c, tr, t0, path, len, st);
	st->total_ms = (double)(fr_session_now(CLOCK_MONOTONIC) - t0) / 1e6;
	return err;
}
