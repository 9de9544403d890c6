/* src/record/synth.c: the tasks that predate the recording: COMM records
 * synthesized from /proc for the file's sideband, and the process table
 * filled from /proc (they emit no COMM or MMAP2 until they exec or map).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/record/internal.h"

/* A COMM record with the sideband's sample_id trailer (TIME, and TID where
 * the sideband event has it). */
static int synth_comm(struct fr_session *s, pid_t pid, pid_t tid, const char *comm,
		      uint64_t time)
{
	uint64_t st = fr_evlist__sideband_event(s->el)->attr.sample_type;
	uint8_t buf[128] = { 0 };
	struct perf_event_header *h = (void *)buf;
	size_t n = strnlen(comm, 15), body = (n + 1 + 7) & ~(size_t)7, off;
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)tid };

	h->type = PERF_RECORD_COMM;
	memcpy(buf + 8, ids, 8);
	memcpy(buf + 16, comm, n);
	off = 16 + body;
	if (st & PERF_SAMPLE_TID) {
		memcpy(buf + off, ids, 8);
		off += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		memcpy(buf + off, &time, 8);
		off += 8;
	}
	h->size = (uint16_t)off;
	return fr_sb_store__append(&s->synth, h, SIZE_MAX);
}

struct synth {
	struct fr_session *s;
	uint64_t t;
	int pid;
};

/* One thread of the process: its name now, as a COMM record. */
static int synth_tid(void *ctx, int tid)
{
	struct synth *y = ctx;
	char path[64], comm[32];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", y->pid, tid);
	if (fr_procfs__read_text(path, comm, sizeof(comm)))
		return 0;   /* gone meanwhile */
	comm[strcspn(comm, "\n")] = '\0';
	if (!comm[0])
		return 0;
	return synth_comm(y->s, y->pid, tid, comm, y->t);
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
		return err ? err : fr_proctable__scan_proc(s->procs, NULL, 0);
	}
	for (size_t i = 0; i < nr && !err; i++)
		err = synth_pid(&y, pids[i]);
	return err ? err : fr_proctable__scan_proc(s->procs, pids, nr);
}
