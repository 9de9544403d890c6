/* src/record/names.c: the sideband ring's name tracepoints (backward mode:
 * the COMMs are in the sample rings): sched_process_exec and the execve
 * entries turned into the COMM records the process table and the files take,
 * and sched_process_exit into each thread's name as it exited.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ring/record.h"
#include "src/record/events.h"
#include "src/record/session_internal.h"

/* sched:sched_process_exec gives names; syscalls:sys_enter_execve(at) the
 * times their images begin. */
int fr_names__init(struct fr_names *n, const struct fr_evlist *el)
{
	memset(n, 0, sizeof(*n));
	for (size_t i = 0; i < fr_evlist__nr_name_tracepoints(el); i++) {
		const struct fr_event *ev = fr_evlist__name_tracepoint(el, i);
		struct fr_tp_field f;
		int err;

		if (!strcmp(ev->name, "sched:sched_process_exit")) {
			struct fr_tp_field c, p;

			/* without its fields: exited threads keep the names seen */
			if (!fr_event__field(ev, "comm", &c) && c.size == 16 && !c.data_loc &&
			    !fr_event__field(ev, "pid", &p) && p.size == 4 && !p.data_loc) {
				n->exit_id = (uint16_t)ev->attr.config;
				n->exit_comm_off = c.offset;
				n->exit_pid_off = p.offset;
			}
		} else if (!strcmp(ev->name, "sched:sched_process_exec")) {
			n->exec_id = (uint16_t)ev->attr.config;
			if ((err = fr_record__exec_fields(ev, &n->exec)))
				return err;
			n->on = true;
		} else if (n->nr_enter < 2 && !fr_event__field(ev, "common_pid", &f) &&
			   f.size == 4 && !f.data_loc) {
			/* without it the entries are left out: names stay right */
			n->common_pid_off = f.offset;
			n->enter_ids[n->nr_enter++] = (uint16_t)ev->attr.config;
		}
	}
	return 0;
}

/* The two COMMs of an exec: the table's, flagged exec at its execve entry
 * when that was seen (the image begins there: the table moves the mappings
 * made since into it), else a plain rename at the exec's end; and the
 * file's, a rename at the exec's end, in its ring's time order (the kernel's
 * own exec COMM is in the sample ring). */
static int exec_comms(struct fr_names *n, const uint8_t *raw, uint32_t size, uint64_t t,
		      uint64_t st, uint64_t *table, uint64_t *file, size_t cap)
{
	struct fr_exec_start *s;
	uint32_t pid, old_pid;
	char comm[16];
	bool start;

	if (fr_record__exec_name(raw, size, &n->exec, &pid, &old_pid, comm))
		return -EBADMSG;
	s = &n->starts[old_pid % FR_NAMES_SLOTS];
	start = s->tid == old_pid && s->time && s->time <= t;
	if (fr_record__make_comm(table, cap, pid, pid, comm, start ? PERF_RECORD_MISC_COMM_EXEC : 0,
				 st, start ? s->time : t) < 0 ||
	    fr_record__make_comm(file, cap, pid, pid, comm, 0, st, t) < 0)
		return -EBADMSG;
	if (start)
		*s = (struct fr_exec_start){ 0, 0 };
	return 1;
}

/* A thread's exit: its name then, for the table (pid 0: the table knows the
 * thread's process). */
static int exit_comm(const struct fr_names *n, const uint8_t *raw, uint32_t size, uint64_t t,
		     uint64_t st, uint64_t *table, size_t cap)
{
	char comm[17];
	int32_t tid;

	if ((size_t)n->exit_comm_off + 16 > size || (size_t)n->exit_pid_off + 4 > size)
		return 0;
	memcpy(comm, raw + n->exit_comm_off, 16);
	comm[16] = '\0';
	memcpy(&tid, raw + n->exit_pid_off, 4);
	if (tid <= 0 || !comm[0] ||
	    fr_record__make_comm(table, cap, 0, (uint32_t)tid, comm, 0, st, t) < 0)
		return 0;
	return 2;
}

int fr_names__sample(struct fr_names *n, const struct perf_event_header *h, uint64_t st,
		     uint64_t *table, uint64_t *file, size_t cap)
{
	const uint8_t *raw;
	uint32_t size, tid;
	uint16_t type;
	uint64_t t;
	int ret;

	if (!n->on || fr_record__time_raw(h, &t, &raw, &size))
		return 0;
	memcpy(&type, raw, 2);
	for (size_t i = 0; i < n->nr_enter; i++) {
		if (type != n->enter_ids[i])
			continue;
		if ((size_t)n->common_pid_off + 4 > size)
			return 0;
		memcpy(&tid, raw + n->common_pid_off, 4);
		n->starts[tid % FR_NAMES_SLOTS] = (struct fr_exec_start){ tid, t };
		return 0;
	}
	if (n->exit_id && type == n->exit_id)
		return exit_comm(n, raw, size, t, st, table, cap);
	ret = type == n->exec_id ? exec_comms(n, raw, size, t, st, table, file, cap) : -EBADMSG;
	return ret < 0 ? 0 : ret;
}
