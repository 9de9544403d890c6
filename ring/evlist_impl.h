/* ring/evlist_impl.h: struct fr_evlist, shared by ring/evlist.c (opening)
 * and ring/evlist_read.c (reading its rings); nothing else includes it.
 */
#ifndef FR_EVLIST_IMPL_H
#define FR_EVLIST_IMPL_H

#include "ring/evlist.h"

struct fd_info {
	int fd;
	int event;       /* -1: sideband */
	size_t cpu_idx;
};

struct cpu_rings {
	struct fr_ring *samples;
	struct fr_ring *sideband;
	struct fr_ring *trigger;
	int sample_leader, sb_leader, trig_leader;
	bool opened;     /* its events and rings are there (a CPU offline at the
			  * start has none until it comes online); set with
			  * release order, once, after the rings: the reader
			  * threads load it (acquire) before they touch them */
};

struct fr_evlist {
	struct fr_event **events;
	size_t nr_events, cap_events;
	struct fr_event sb_event;
	struct fr_event *trig_event;
	struct fr_event *trig_end;      /* a latency pair's END (trig_event its BEGIN), or NULL */
	char *trig_filter;
	struct fr_event *name_tps[FR_EVLIST_MAX_NAME_TPS]; /* into the sideband rings */
	size_t nr_name_tps;            /* > 0: the COMMs go into the sample rings */
	bool names_all;                /* a per-task target's name tracepoints see
	                                * every task (opened per CPU, pid -1) */
	int *cpus;       /* one slot per CPU: a system-wide or cgroup target's are
			  * the possible CPUs, a per-task target's those online */
	size_t nr_cpus;
	unsigned generation;        /* CPUs opened after the start or again (reopen_cpu) */
	struct cpu_rings *rings;
	struct fd_info *fds;
	size_t nr_fds, cap_fds;
	uint64_t **ids;
	size_t *nr_ids, *cap_ids;
	bool read_lost;
	struct fr_copier *copier;   /* backward rings only */
	bool backward;              /* the sample rings overwrite */
	bool sb_in_samples;         /* no sideband ring: the first sample event carries it */
	struct fr_target target;    /* as opened (a CPU back online is opened again so) */
	struct fr_evlist_opts opts;
	const struct fr_evlist_writer_ops *writer; /* set_writer's, or NULL */
	void *writer_ctx;
};

#endif
