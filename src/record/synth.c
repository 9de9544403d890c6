/* src/record/synth.c: the tasks that predate the recording: COMM records
 * synthesized from /proc for the file's sideband, and the process table
 * filled from /proc (they emit no COMM or MMAP2 until they exec or map).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/record/internal.h"

/* A COMM record with the sideband's sample_id trailer (TID|TIME). */
static int synth_comm(struct fr_session *s, pid_t pid, pid_t tid, const char *comm,
		      uint64_t time)
{
	uint8_t buf[128] = { 0 };
	struct perf_event_header *h = (void *)buf;
	size_t n = strnlen(comm, 15), body = (n + 1 + 7) & ~(size_t)7;
	uint32_t ids[2] = { (uint32_t)pid, (uint32_t)tid };

	h->type = PERF_RECORD_COMM;
	h->size = (uint16_t)(sizeof(*h) + 8 + body + 16);
	memcpy(buf + 8, ids, 8);
	memcpy(buf + 16, comm, n);
	memcpy(buf + 16 + body, ids, 8);
	memcpy(buf + 24 + body, &time, 8);
	return fr_sb_store__append(&s->synth, h, SIZE_MAX);
}

static int synth_pid(struct fr_session *s, pid_t pid, uint64_t t)
{
	char path[64], comm[32];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;   /* gone meanwhile */
	while (!err && (de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (de->d_name[0] == '.' || *end || tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%ld/comm", (int)pid, tid);
		if (fr_procfs__read_text(path, comm, sizeof(comm)))
			continue;
		comm[strcspn(comm, "\n")] = '\0';
		if (!comm[0])
			continue;
		err = synth_comm(s, pid, (pid_t)tid, comm, t);
	}
	closedir(d);
	return err;
}

int fr_session__synthesize(struct fr_session *s, const pid_t *pids, size_t nr)
{
	uint64_t t = fr_session_now(CLOCK_MONOTONIC);
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (pids) {
		for (size_t i = 0; i < nr && !err; i++)
			err = synth_pid(s, pids[i], t);
		return err ? err : fr_proctable__scan_proc(s->procs, pids, nr);
	}
	d = opendir("/proc");
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		err = synth_pid(s, (pid_t)pid, t);
	}
	closedir(d);
	return err ? err : fr_proctable__scan_proc(s->procs, NULL, 0);
}
