/* src/record/forward_file.c: forward (streaming) mode's files: each opened
 * O_APPEND, written by the main thread (header, meta, events, sideband, table,
 * stats, END) and by one reader thread per CPU (samples), chunk by chunk; the
 * switch to the next file (--switch-output, a snapshot) and --max-files.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/record/internal.h"

#define SIZE_CHECK_MS 250   /* --switch-output SIZE: the file's size is looked at this often */

/* One file's writers: the session's current file, or the one being
 * completed (or discarded) while the next one goes on. */
struct fwd_out {
	int fd;
	struct fr_writer *w;         /* header, meta, events, blobs, END */
	struct fr_writer **sbw;      /* per CPU sideband appenders */
	uint64_t *sb_nr, *sb_lost;   /* per CPU sideband counts */
	char path[PATH_MAX];         /* the file as written (NAME.frec, or NAME.frec.part) */
	char final[PATH_MAX];        /* its name once complete: "" when path is it */
};

static void take_out(struct fr_session *s, struct fwd_out *o)
{
	o->fd = s->fd;
	o->w = s->w;
	o->sbw = s->sbw;
	o->sb_nr = s->sb_nr;
	o->sb_lost = s->sb_lost;
	snprintf(o->path, sizeof(o->path), "%s", s->path);
	snprintf(o->final, sizeof(o->final), "%s", s->fwd_final);
}

static void give_out(struct fr_session *s, const struct fwd_out *o)
{
	s->fd = o->fd;
	s->w = o->w;
	s->sbw = o->sbw;
	s->sb_nr = o->sb_nr;
	s->sb_lost = o->sb_lost;
	snprintf(s->path, sizeof(s->path), "%s", o->path);
	snprintf(s->fwd_final, sizeof(s->fwd_final), "%s", o->final);
}

/* A file that could not be made: nothing of it is left behind. */
static void discard_out(struct fr_session *s, struct fwd_out *o)
{
	for (size_t ci = 0; o->sbw && ci < fr_evlist__nr_cpus(s->el); ci++)
		if (o->sbw[ci])
			fr_writer__close(o->sbw[ci]);
	if (o->w)
		fr_writer__abort(o->w);
	if (o->fd >= 0)
		close(o->fd);
	if (o->path[0])
		unlink(o->path);
	free(o->sbw);
	free(o->sb_nr);
	free(o->sb_lost);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

/* Name and create the file O_EXCL: NAME.frec, or with --switch-output
 * NAME.frec.part, renamed when complete (a name taken: the next sequence). */
static int create_file(struct fr_session *s, struct fwd_out *o)
{
	int tries = 0, err;

	do {
		err = fr_session_make_path(s, ".frec", o->path, sizeof(o->path));
		o->final[0] = '\0';
		if (!err && s->o.rotate) {
			snprintf(o->final, sizeof(o->final), "%s", o->path);
			if ((size_t)snprintf(o->path, sizeof(o->path), "%s.part", o->final) >=
			    sizeof(o->path))
				err = -ENAMETOOLONG;
			else if (!access(o->final, F_OK))
				err = -EEXIST;
		}
		if (!err) {
			o->fd = open(o->path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
			err = o->fd < 0 ? -errno : 0;
		}
	} while (err == -EEXIST && ++tries < 100);
	if (err)
		o->path[0] = '\0';
	return err;
}

/* A new file, ready for the readers: header, meta, events, the synthesized
 * COMMs, one sideband stream per CPU begun. */
static int open_out(struct fr_session *s, struct fwd_out *o)
{
	size_t ncpu = fr_evlist__nr_cpus(s->el);
	uint64_t sb_type = fr_evlist__sideband_event(s->el)->attr.sample_type;
	char nr[32];
	int err, wfd;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->sbw = calloc(ncpu, sizeof(*o->sbw));
	o->sb_nr = calloc(ncpu, sizeof(*o->sb_nr));
	o->sb_lost = calloc(ncpu, sizeof(*o->sb_lost));
	if (!o->sbw || !o->sb_nr || !o->sb_lost)
		return -ENOMEM;
	err = create_file(s, o);
	if (err)
		return err;
	wfd = dup(o->fd);
	if (wfd < 0)
		return -errno;
	err = fr_writer__fdopen(wfd, s->o.zstd_level, &o->w);
	if (err) {
		close(wfd);
		return err;
	}
	s->fwd_t0 = fr_session_now(CLOCK_MONOTONIC);
	fr_session_write_meta(s, o->w, "stream", s->fwd_t0, false);
	snprintf(nr, sizeof(nr), "%u", ++s->fwd_nr);
	fr_writer__meta(o->w, "forward_file", nr);   /* 1, 2, ...: this recorder's files in order */
	err = fr_session_write_events(s, o->w);
	if (!err)
		err = fr_sb_store__write(o->w, FR_CPU_NONE, &s->synth, 0, sb_type);
	for (size_t ci = 0; ci < ncpu && !err; ci++) {
		int fd = dup(o->fd);

		if (fd < 0)
			return -errno;
		err = fr_writer__appender(fd, s->o.zstd_level, &o->sbw[ci]);
		if (err) {
			close(fd);
			break;
		}
		err = fr_writer__records_begin(o->sbw[ci], (uint32_t)fr_evlist__cpu(s->el, ci),
					       FR_STREAM_SIDEBAND);
	}
	return err;
}

/* The readers' output: the reader threads append to the session's current
 * file (one call; a switch stops them and starts new ones on the next file). */
static int start_readers(struct fr_session *s)
{
	struct fr_forward_opts fo = { .zstd_level = s->o.zstd_level, .flush_ms = s->o.flush_ms,
				      .reader_cpus = s->o.reader_cpus,
				      .nr_reader_cpus = s->o.nr_reader_cpus,
				      .unpinned = s->o.readers_unpinned,
				      .own = s->o.readers_own };

	return fr_forward__start(s->el, s->fd, &fo, fr_session_forward_record, s, &s->fwd);
}

/* Stop the readers after their last drain (what they wrote is the current
 * file's; what the kernel writes meanwhile waits in the rings for the next
 * readers), then what belongs to the file up to here: the sideband drained
 * into it, the kernel symbols its samples noted (taken, so the next file
 * notes its own), each CPU's PERF_FORMAT_LOST count since the file began. */
static int stop_readers(struct fr_session *s, struct fr_cpu_stat *cs, uint64_t *drops,
			uint64_t *chunks)
{
	int err = 0, e;

	*chunks = 0;
	if (s->fwd)
		err = fr_forward__stop(s->fwd, cs, drops, chunks);
	s->fwd = NULL;
	e = fr_session__drain(s);
	err = err ? err : e;
	e = fr_session_write_ksyms(s, s->w);
	err = err ? err : e;
	for (size_t ci = 0; ci < fr_evlist__nr_cpus(s->el); ci++) {
		uint64_t now = 0;

		fr_evlist__lost_samples(s->el, ci, &now);
		cs[ci].lost_samples = now > s->lost_base[ci] ? now - s->lost_base[ci] : 0;
		s->lost_base[ci] = now;
	}
	return err;
}

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

static int write_trigger(struct fr_writer *w, const struct fr_trigger *tr, uint64_t t0)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "source=%s\ntrigger_time_ns=%llu\nsnapshot_time_ns=%llu\n"
			 "after_ns=%llu\ncoalesced=%u\n", tr->source, (unsigned long long)tr->time,
			 (unsigned long long)t0, (unsigned long long)tr->after_ns, tr->coalesced);

	if (n < 0 || (size_t)n >= sizeof(buf))
		return -EINVAL;
	return fr_writer__blob(w, FR_BLOB_TRIGGER, buf, (size_t)n);
}

/* Complete a file whose readers stopped: its sideband streams ended, the
 * process table, the trigger, the CPU stats, END; renamed into place when it
 * was written as .part; the oldest beyond --max-files deleted. Its counts go
 * to st; path gets its name. */
static int complete(struct fr_session *s, struct fwd_out *o, struct fr_cpu_stat *cs,
		    const uint64_t *drops, uint64_t chunks, const struct fr_trigger *tr,
		    struct fr_snapshot_stats *st, char *path, size_t len)
{
	size_t ncpu = fr_evlist__nr_cpus(s->el);
	const char *name = o->final[0] ? o->final : o->path;
	struct stat sb;
	int err = 0, e;

	for (size_t ci = 0; ci < ncpu; ci++) {
		uint64_t dropped = 0;

		cs[ci].cpu = (uint32_t)fr_evlist__cpu(s->el, ci);
		if (o->sbw && o->sbw[ci]) {
			e = fr_writer__records_end(o->sbw[ci]);
			err = err ? err : e;
			fr_writer__dropped(o->sbw[ci], &dropped, NULL);
			chunks += fr_writer__chunks(o->sbw[ci]);
			fr_writer__close(o->sbw[ci]);
			o->sbw[ci] = NULL;
		}
		o->sb_lost[ci] += dropped;
		cs[ci].nr_sideband = o->sb_nr[ci];
		st->samples += cs[ci].nr_samples;
		st->sideband += cs[ci].nr_sideband;
		st->lost += fr_session_cpu_lost(&cs[ci], o->sb_lost[ci], drops ? drops[ci] : 0);
	}
	if (o->w) {
		fr_writer__add_chunks(o->w, chunks);
		if (!err)
			err = fr_session_write_procs(s, o->w, NULL, 0);
		if (!err)
			err = write_trigger(o->w, tr, fr_session_now(CLOCK_MONOTONIC));
		if (!err)
			err = fr_writer__cpu_stats(o->w, cs, ncpu);
		e = err ? (fr_writer__abort(o->w), err) : fr_writer__close(o->w);
		err = err ? err : e;
		o->w = NULL;
	}
	if (o->fd >= 0 && !fstat(o->fd, &sb))
		st->bytes = (uint64_t)sb.st_size;
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	/* a file that failed stays .part: it reads up to its last good chunk */
	if (!err && o->final[0] && rename(o->path, o->final))
		err = -errno;
	if (!err && o->final[0])
		sync_dir(s->o.outdir);
	snprintf(path, len, "%s", err ? o->path : name);
	s->fwd_done_bytes += st->bytes;
	s->fwd_total.samples += st->samples;
	s->fwd_total.sideband += st->sideband;
	s->fwd_total.lost += st->lost;
	s->fwd_total.bytes += st->bytes;
	if (!err)
		fr_session_rotate(s, name);
	free(o->sbw);
	free(o->sb_nr);
	free(o->sb_lost);
	o->sbw = NULL;
	o->sb_nr = o->sb_lost = NULL;
	return err;
}

static int forward_start(struct fr_session *s, char *path, size_t len)
{
	struct fwd_out o;
	int err;

	fr_session__load_ksyms(s);   /* before the readers note addresses in it */
	s->lost_base = calloc(fr_evlist__nr_cpus(s->el), sizeof(*s->lost_base));
	if (!s->lost_base)
		return -ENOMEM;
	err = open_out(s, &o);
	if (err) {
		discard_out(s, &o);
		return err;
	}
	give_out(s, &o);
	snprintf(path, len, "%s", s->path);
	return start_readers(s);
}

int fr_session__forward_start(struct fr_session *s, char *path, size_t len)
{
	int err = forward_start(s, path, len);

	/* no half-made file is left behind */
	if (err && s->path[0]) {
		struct fwd_out o;

		if (s->fwd) {
			uint64_t chunks;

			fr_forward__stop(s->fwd, NULL, NULL, &chunks);
			s->fwd = NULL;
		}
		take_out(s, &o);
		discard_out(s, &o);
		give_out(s, &o);
	}
	return err;
}

int fr_session__forward_tick(struct fr_session *s)
{
	int err = fr_session__drain(s);

	for (size_t ci = 0; ci < fr_evlist__nr_cpus(s->el) && !err; ci++)
		err = fr_writer__flush(s->sbw[ci]);
	return err;
}

const char *fr_session__forward_due(struct fr_session *s, int *wait_ms)
{
	uint64_t now = fr_session_now(CLOCK_MONOTONIC), due;
	struct stat sb;

	*wait_ms = -1;
	if (s->fd < 0 || !s->fwd)
		return NULL;
	if (s->o.switch_ns) {
		due = s->fwd_t0 + s->o.switch_ns;
		if (now >= due)
			return "time";
		*wait_ms = (int)((due - now + 999999) / 1000000);
	}
	if (s->o.switch_bytes) {
		if (!fstat(s->fd, &sb) && (uint64_t)sb.st_size >= s->o.switch_bytes)
			return "size";
		if (*wait_ms < 0 || *wait_ms > SIZE_CHECK_MS)
			*wait_ms = SIZE_CHECK_MS;
	}
	return NULL;
}

uint64_t fr_session__forward_bytes(const struct fr_session *s)
{
	struct stat sb;

	return s->fwd_done_bytes + (s->fd >= 0 && !fstat(s->fd, &sb) ? (uint64_t)sb.st_size : 0);
}

int fr_session__forward_switch(struct fr_session *s, const struct fr_trigger *tr, char *path,
			       size_t len, struct fr_snapshot_stats *st)
{
	size_t ncpu = fr_evlist__nr_cpus(s->el);
	struct fr_cpu_stat *cs = calloc(ncpu, sizeof(*cs));
	uint64_t *drops = calloc(ncpu, sizeof(*drops));
	uint64_t t0 = fr_session_now(CLOCK_MONOTONIC), t_cur = s->fwd_t0, t_stop, chunks = 0;
	double gap_ms;
	unsigned nr_cur = s->fwd_nr;
	struct fwd_out next, cur;
	int err, e;

	memset(st, 0, sizeof(*st));
	if (!cs || !drops) {
		err = -ENOMEM;
		goto out;
	}
	if (s->fd < 0 || !s->fwd) {
		err = -EIO;   /* the readers stopped after an earlier failure */
		goto out;
	}
	/* the next file first, while the readers still run: they stop only
	 * for the time it takes to join them and start the next ones */
	err = open_out(s, &next);
	if (err) {
		discard_out(s, &next);
		s->fwd_t0 = t_cur;   /* the current file goes on as it was */
		s->fwd_nr = nr_cur;
		goto out;
	}
	t_stop = fr_session_now(CLOCK_MONOTONIC);
	err = stop_readers(s, cs, drops, &chunks);
	take_out(s, &cur);
	give_out(s, &next);
	e = start_readers(s);
	gap_ms = (double)(fr_session_now(CLOCK_MONOTONIC) - t_stop) / 1e6;
	if (e) {
		/* no readers on the next file: back to the current one */
		take_out(s, &next);
		give_out(s, &cur);
		discard_out(s, &next);
		s->fwd_t0 = t_cur;
		s->fwd_nr = nr_cur;
		if (start_readers(s))
			s->fwd = NULL;
		err = e;
		goto out;
	}
	e = complete(s, &cur, cs, drops, chunks, tr, st, path, len);
	err = err ? err : e;
	st->copy_ms = gap_ms;
	st->total_ms = (double)(fr_session_now(CLOCK_MONOTONIC) - t0) / 1e6;
out:
	free(cs);
	free(drops);
	return err;
}

int fr_session__forward_stop(struct fr_session *s, const struct fr_trigger *tr, char *path,
			     size_t len, struct fr_snapshot_stats *st)
{
	size_t ncpu = fr_evlist__nr_cpus(s->el);
	struct fr_cpu_stat *cs = calloc(ncpu, sizeof(*cs));
	uint64_t *drops = calloc(ncpu, sizeof(*drops));
	uint64_t t0 = fr_session_now(CLOCK_MONOTONIC), chunks = 0;
	struct fr_snapshot_stats last = { 0 };
	struct fwd_out cur;
	int err, e;

	memset(st, 0, sizeof(*st));
	path[0] = '\0';
	if (!cs || !drops || !s->lost_base) {
		free(cs);
		free(drops);
		return -ENOMEM;
	}
	err = stop_readers(s, cs, drops, &chunks);
	take_out(s, &cur);
	e = complete(s, &cur, cs, drops, chunks, tr, &last, path, len);
	err = err ? err : e;
	give_out(s, &cur);
	s->fd = -1;
	s->path[0] = '\0';
	*st = s->fwd_total;
	st->total_ms = (double)(fr_session_now(CLOCK_MONOTONIC) - t0) / 1e6;
	free(cs);
	free(drops);
	free(s->lost_base);
	s->lost_base = NULL;
	return err;
}
