/* src/session.h: one recording: the opened evlist, the sideband kept in user
 * space, and writing a snapshot of the rings to a new file.
 */
#ifndef FR_SESSION_H
#define FR_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ring/evlist.h"

struct fr_session_opts {
	const char *outdir;
	const char *name;
	const char *target_desc;   /* "system-wide", "pid 12,34", "command ./x" */
	const char *cmdline;       /* the record command line, for the file */
	int zstd_level;
	size_t sb_cap;             /* bytes of sideband kept per CPU before the oldest half goes */
};

struct fr_snapshot_stats {
	uint64_t samples;          /* sample records written */
	uint64_t sideband;         /* sideband records written */
	uint64_t lost;             /* PERF_RECORD_LOST counts + PERF_FORMAT_LOST */
	uint64_t raced_bytes;      /* overwritten during the copy */
	uint64_t bytes;            /* file size */
	double copy_ms;            /* trigger to rings copied */
	double total_ms;           /* trigger to file closed */
	int write_err;             /* -errno of the file write, 0 if fine */
	bool pinned;
};

struct fr_session;

/* Takes ownership of el (opened, not yet enabled). */
int fr_session__new(struct fr_evlist *el, const struct fr_session_opts *o,
		    struct fr_session **out);
void fr_session__delete(struct fr_session *s);
struct fr_evlist *fr_session__evlist(const struct fr_session *s);
/* Synthesize COMM records for the tasks that exist now (they emit none
 * until they exec or rename): all of /proc, or the given pids. */
int fr_session__synthesize(struct fr_session *s, const pid_t *pids, size_t nr);
/* Drain the sideband rings into the session's store. */
int fr_session__drain(struct fr_session *s);
/* Write every ring's window to a new file in outdir; path gets its name.
 * Returns 0 or -errno (the file is removed unless it is usable). */
int fr_session__snapshot(struct fr_session *s, const char *trigger, char *path, size_t len,
			 struct fr_snapshot_stats *st);

#endif
