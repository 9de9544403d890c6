/* src/session_fwd.c: forward (streaming) mode of a session: one file opened
 * O_APPEND, written by the main thread (header, meta, events, sideband, table,
 * stats, END) and by one reader thread per CPU (samples), chunk by chunk.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/record/internal.h"

static int open_stream_file(struct fr_session *s, char *path, size_t len)
{
	int tries = 0, err;

	do {
		err = fr_session_make_path(s, ".frec", path, len);
		if (err)
			return err;
		s->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
		err = s->fd < 0 ? -errno : 0;
	} while (err == -EEXIST && ++tries < 100);
	return err;
}

static int forward_start(struct fr_session *s, char *path, size_t len);

int fr_session__forward_start(struct fr_session *s, char *path, size_t len)
{
	int err = forward_start(s, path, len);

	/* no half-made file is left behind */
	if (err && s->path[0])
		unlink(s->path);
	return err;
}

static int forward_start(struct fr_session *s, char *path, size_t len)
{
	size_t ncpu = fr_evlist__nr_cpus(s->el);
	uint64_t sb_type = fr_evlist__sideband_event(s->el)->attr.sample_type;
	int err, wfd;

	fr_session__load_ksyms(s);   /* before the readers note addresses in it */

	s->sbw = calloc(ncpu, sizeof(*s->sbw));
	s->sb_nr = calloc(ncpu, sizeof(*s->sb_nr));
	s->sb_lost = calloc(ncpu, sizeof(*s->sb_lost));
	if (!s->sbw || !s->sb_nr || !s->sb_lost)
		return -ENOMEM;
	err = open_stream_file(s, path, len);
	if (err)
		return err;
	snprintf(s->path, sizeof(s->path), "%s", path);
	wfd = dup(s->fd);
	if (wfd < 0)
		return -errno;
	err = fr_writer__fdopen(wfd, s->o.zstd_level, &s->w);
	if (err) {
		close(wfd);
		return err;
	}
	fr_session_write_meta(s, s->w, "stream", s->start_ns, false);
	err = fr_session_write_events(s, s->w);
	if (!err)
		err = fr_sb_store__write(s->w, FR_CPU_NONE, &s->synth, 0, sb_type);
	for (size_t ci = 0; ci < ncpu && !err; ci++) {
		int fd = dup(s->fd);

		if (fd < 0)
			return -errno;
		err = fr_writer__appender(fd, s->o.zstd_level, &s->sbw[ci]);
		if (err) {
			close(fd);
			break;
		}
		err = fr_writer__records_begin(s->sbw[ci], (uint32_t)fr_evlist__cpu(s->el, ci),
					       FR_STREAM_SIDEBAND);
	}
	if (!err) {
		struct fr_forward_opts fo = { .zstd_level = s->o.zstd_level, .flush_ms = s->o.flush_ms,
					      .reader_cpus = s->o.reader_cpus,
					      .nr_reader_cpus = s->o.nr_reader_cpus };

		err = fr_forward__start(s->el, s->fd, &fo, fr_session_forward_record, s, &s->fwd);
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

int fr_session__forward_stop(struct fr_session *s, struct fr_snapshot_stats *st)
{
	size_t ncpu = fr_evlist__nr_cpus(s->el);
	struct fr_cpu_stat *cs = calloc(ncpu, sizeof(*cs));
	uint64_t *drops = calloc(ncpu, sizeof(*drops));
	uint64_t t0 = fr_session_now(CLOCK_MONOTONIC), chunks = 0;
	struct fr_trigger tr = { .source = "stop", .time = t0 };
	int err = 0, e;

	memset(st, 0, sizeof(*st));
	if (!cs || !drops) {
		free(cs);
		free(drops);
		return -ENOMEM;
	}
	if (s->fwd)
		err = fr_forward__stop(s->fwd, cs, drops, &chunks);
	s->fwd = NULL;
	e = fr_session__drain(s);
	err = err ? err : e;
	for (size_t ci = 0; ci < ncpu; ci++) {
		uint64_t dropped;

		if (!s->sbw || !s->sbw[ci])
			continue;
		e = fr_writer__records_end(s->sbw[ci]);
		err = err ? err : e;
		fr_writer__dropped(s->sbw[ci], &dropped, NULL);
		s->sb_lost[ci] += dropped;
		chunks += fr_writer__chunks(s->sbw[ci]);
		fr_writer__close(s->sbw[ci]);
		s->sbw[ci] = NULL;
		cs[ci].cpu = (uint32_t)fr_evlist__cpu(s->el, ci);
		cs[ci].nr_sideband = s->sb_nr[ci];
		fr_evlist__lost_samples(s->el, ci, &cs[ci].lost_samples);
		st->samples += cs[ci].nr_samples;
		st->sideband += cs[ci].nr_sideband;
		st->lost += fr_session_cpu_lost(&cs[ci], s->sb_lost[ci], drops ? drops[ci] : 0);
	}
	if (s->w) {
		fr_writer__add_chunks(s->w, chunks);
		if (!err)
			err = fr_session_write_procs(s, s->w, NULL, 0);
		if (!err)
			err = fr_session_write_ksyms(s, s->w);
		if (!err) {
			char buf[128];
			int n = snprintf(buf, sizeof(buf), "source=%s\ntrigger_time_ns=%llu\n",
					 tr.source, (unsigned long long)tr.time);

			err = fr_writer__blob(s->w, FR_BLOB_TRIGGER, buf, (size_t)n);
		}
		if (!err)
			err = fr_writer__cpu_stats(s->w, cs, ncpu);
		e = err ? (fr_writer__abort(s->w), err) : fr_writer__close(s->w);
		err = err ? err : e;
		s->w = NULL;
	}
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	st->bytes = 0;
	st->total_ms = (double)(fr_session_now(CLOCK_MONOTONIC) - t0) / 1e6;
	free(cs);
	free(drops);
	return err;
}
