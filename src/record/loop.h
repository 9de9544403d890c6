/* src/record/loop.h: the recorder's main loop, the same for every source:
 * signals, the control socket, the sideband and trigger rings, post-trigger
 * windows, coalescing, the rate limit, --switch-output's next file.
 */
#ifndef FR_RECORD_LOOP_H
#define FR_RECORD_LOOP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "src/record/control.h"
#include "src/record/hook.h"
#include "src/record/session.h"

struct fr_loop_opts {
	int sfd;                    /* signalfd: INT, TERM, HUP, USR2, CHLD */
	pid_t child;                /* the recorded command, or -1 */
	const int *pids;            /* -p targets: the loop ends when every one exited */
	size_t nr_pids;
	uint64_t rate_n, rate_ns;   /* --max-snapshots N/PERIOD (0: unlimited) */
	uint64_t trigger_after_ns;  /* --trigger-after: post-trigger window of event triggers */
	uint64_t latency_ns;        /* --trigger-latency: a pair longer than this triggers */
	struct fr_hooks *hooks;     /* --exec-on-snapshot, or NULL */
	void (*progress)(uint64_t bytes, uint64_t per_sec, bool done);  /* or NULL */
};

/* Run until SIGINT/SIGTERM/SIGHUP, the command's exit, or every -p target's
 * exit. *ended is true when the target ended (a final snapshot is due). Returns
 * FR_EXIT_OK, FR_EXIT_PARTIAL if a snapshot failed, or FR_EXIT_ERROR when the
 * loop itself failed (said in one line; recording stopped there). */
int fr_record_loop(struct fr_session *s, struct fr_control *ctl, const struct fr_loop_opts *o,
		   bool *ended);
/* Write one snapshot now and report it (used for the final one too): 0,
 * 1 when the file was written without some CPUs (said), or -errno. */
int fr_record_snapshot_now(struct fr_session *s, const struct fr_trigger *tr, char *path,
			   size_t len);

#endif
