/* src/record/synth.c: the tasks that predate the recording: their threads'
 * names from /proc as COMM records of the synthesized sideband stream, and
 * the process table filled from /proc (they emit no COMM or MMAP2 until they
 * exec or map).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/proc/proctable.h"
#include "src/record/session_internal.h"

struct synth {
	struct fr_session *s;
	uint64_t t;
	int pid;
};

/* One thread of the process: its name now, as a COMM record. */
static int synth_tid(void *ctx, int tid)
{
	struct synth *y = ctx;
	char comm[32];

	if (fr_procfs__thread_comm(y->pid, tid, comm))
		return 0;   /* gone meanwhile */
	return fr_sideband__synth_comm(y->s->sb, (uint32_t)y->pid, (uint32_t)tid, comm, y->t);
}

static int synth_pid(void *ctx, int pid)
{
	struct synth *y = ctx;
	char path[64];
	int err;

	y->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	err = fr_procfs__for_each_id(path, synth_tid, y);
	return err == -ENOMEM ? err : 0;   /* gone meanwhile, or not ours to read */
}

int fr_session__synthesize(struct fr_session *s, const pid_t *pids, size_t nr)
{
	struct synth y = { .s = s, .t = fr_session_now(CLOCK_MONOTONIC) };
	int err = 0;

	if (!pids) {
		err = fr_procfs__for_each_id("/proc", synth_pid, &y);
		return err ? err : fr_sideband__scan_proc(s->sb, NULL, 0);
	}
	for (size_t i = 0; i < nr && !err; i++)
		err = synth_pid(&y, pids[i]);
	return err ? err : fr_sideband__scan_proc(s->sb, pids, nr);
}
