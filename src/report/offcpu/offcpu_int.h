/* src/report/offcpu/offcpu_int.h: the state of an fr_offcpu, shared by the
 * waits' state machine (offcpu.c) and what is set on it and read from it
 * (offcpu_access.c); not for the views, which read offcpu.h.
 */
#ifndef FR_REPORT_OFFCPU_INT_H
#define FR_REPORT_OFFCPU_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hmap.h"
#include "src/report/offcpu/offcpu.h"

enum tstate { T_FRESH, T_RUN, T_OFF, T_DEAD };

struct thr {
	uint32_t pid, tid;
	const char *comm;
	enum tstate st;
	uint64_t start, end, since, on, off[FR_WAIT_NR], delay, waits;
	uint64_t unknown;                 /* not known on- or off-CPU: a switch-out not recorded */
	uint64_t outs;                    /* switch-outs seen */
	bool doubled;                     /* switched in again without a switch-out seen */
	bool in_told;                     /* per task: this run's switch-in came from the switch
					   * that brought it in; its own record tells it again */
	bool sel, ever_sel;               /* selected now (as of sel_pid, sel_comm); ever */
	uint32_t sel_pid;
	const char *sel_comm;
	bool sel_known;
	struct fr_wait w;                 /* the open wait (T_OFF) */
	struct fr_wait done;              /* thresh: the last wait closed without a stack, */
	bool done_open, done_sel;         /* waiting for its offcpu-stack sample */
	struct fr_frame *early;           /* thresh: a stack read before the switch-in that */
	size_t nr_early, cap_early;       /* ends the open wait (its stamp ran late): kept */
	uint64_t early_off, early_thresh; /* for that close; early_off 0: none */
	uint64_t early_in;                /* its switch-in's time (0: match by length) */
	struct fr_wait last;              /* the last wait closed, for a delay told later */
	bool last_open, last_sel;
	size_t last_idx;                  /* its place in waits (keep), else SIZE_MAX */
	const struct fr_sym *leaf;        /* a placeholder stack, or NULL: frames */
	struct fr_frame *frames;          /* the open wait's stack, leaf first */
	size_t nr_frames, cap_frames;
};

struct fr_offcpu {
	uint64_t t0, t1;
	uint64_t thresh;                  /* the stacks of waits come apart (offcpu-stack) */
	bool keep, finished;
	struct thr *thr;
	size_t nr_thr, cap_thr;
	struct fr_hmap index;             /* tid -> its newest thr */
	struct fr_wait *waits;
	size_t nr_waits, cap_waits;
	struct fr_wait *unknowns;         /* keep: the times not known, for the timelines */
	size_t nr_unknowns, cap_unknowns;
	struct fr_offcpu_totals tot;
	struct fr_folded *folded;
	fr_offcpu_sink sink;
	void *sink_ctx;
	fr_offcpu_select select;          /* NULL: every thread */
	void *select_ctx;
	fr_offcpu_identify identify;      /* NULL: only what the switches say */
	void *identify_ctx;
	uint32_t *shown;                  /* after finish: the threads the views show */
	size_t nr_shown;
	struct fr_frame *scratch;
	size_t cap_scratch;
	struct fr_wakers *wakers;         /* each wait's waker joined (wakers.c), or NULL */
};

#endif
