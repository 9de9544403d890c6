/* src/session_internal.h: the session's state, shared by session.c (common
 * parts, backward snapshots) and session_fwd.c (forward streaming).
 */
#ifndef FR_SESSION_INTERNAL_H
#define FR_SESSION_INTERNAL_H

#include "src/file/file.h"
#include "src/record/readers.h"
#include "src/proc/proctable.h"
#include "src/record/session.h"
#include "symbolize/kallsyms.h"

struct sb_store {
	uint8_t *buf;
	size_t len, cap;
	uint64_t nr, dropped, lost;
};

struct pend_ref {
	uint64_t time;
	size_t off;
};

struct id_map {
	uint64_t id;
	size_t event;
};

struct fr_session {
	struct fr_evlist *el;
	struct fr_session_opts o;
	struct sb_store *sb;       /* per CPU (backward) */
	struct sb_store synth;     /* COMM records of tasks that predate the recording */
	struct fr_ring_snapshot *snaps;
	struct id_map *ids;
	size_t nr_ids;
	unsigned seq;
	uint64_t start_ns;
	struct fr_kallsyms *ksyms;  /* NULL when /proc/kallsyms is unreadable */
	struct fr_proctable *procs;
	struct sb_store pend;      /* table records of one drain, before sorting */
	struct pend_ref *pend_refs;
	size_t pend_cap;
	uint64_t gc_at;            /* exited images that trigger a collection */
	/* forward mode */
	int fd;
	struct fr_writer *w;       /* header, meta, events, blobs, END */
	struct fr_writer **sbw;    /* per CPU sideband appenders */
	struct fr_forward *fwd;
	uint64_t *sb_nr, *sb_lost; /* per CPU sideband counts */
	char path[4096];
};

uint64_t fr_session_now(clockid_t clk);
const struct fr_event *fr_session_record_event(const struct fr_session *s,
					       const struct perf_event_header *h);
uint64_t fr_session_record_time(void *s, const struct perf_event_header *h);
void fr_session_write_meta(struct fr_session *s, struct fr_writer *w, const char *trigger,
			   uint64_t t_mono, bool pinned);
int fr_session_write_events(struct fr_session *s, struct fr_writer *w);
int fr_session_write_store(struct fr_writer *w, uint32_t cpu, const struct sb_store *st,
			   uint64_t cutoff, uint64_t sample_type);
int fr_session_write_procs(struct fr_session *s, struct fr_writer *w, const uint32_t *pids,
			   size_t nr);
/* Forward mode's per-record hook (reader threads): the record's time, and its
 * kernel addresses noted for the KSYMS blob. */
uint64_t fr_session_forward_record(void *ctx, const struct perf_event_header *h);
int fr_session_write_ksyms(struct fr_session *s, struct fr_writer *w);
int fr_session_make_path(struct fr_session *s, const char *suffix, char *path, size_t len);

#endif
