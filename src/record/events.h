/* src/record/events.h: the events of a recording and their attributes
 * (events.c), shared by the recorder (run.c) and bench/floor, whose kernel
 * cost is measured on exactly these attributes.
 */
#ifndef FR_RECORD_EVENTS_H
#define FR_RECORD_EVENTS_H

#include <stdbool.h>

#include "ring/evlist.h"
#include "ring/record.h"
#include "src/record/record.h"

#define FR_RECORD_SB_PAGES 256   /* 1 MiB sideband ring per CPU: a COMM storm fits */

/* A new *el (the old one deleted) with o's events resolved: -e names with
 * -F/-c and the call graph applied, --filter, and the --trigger event;
 * user_only: the kernel refused kernel samples, so events that did not ask
 * for them (:k) exclude the kernel. Errors are said (fr_err). Returns an
 * exit code. */
int fr_record__build_evlist(struct fr_record_opts *o, struct fr_evlist **el, bool user_only);
/* No -e: perf's default, cycles where the machine has a PMU, else cpu-clock
 * (said with fr_info). */
void fr_record__default_event(struct fr_record_opts *o);
/* --off-cpu: sched:sched_switch and sched:sched_waking (the waker's context,
 * so its stack is the waker's) after the -e events
 * (each unless named already; the front door left room for both). Their
 * sched_switch then also gets context_switch on per-task targets. */
void fr_record__off_cpu_events(struct fr_record_opts *o);
/* Backward mode's names (ring/evlist.h): sched:sched_process_exec and
 * syscalls:sys_enter_execve(at) into the sideband ring, the COMMs into the
 * sample rings. 0 when sched_process_exec was added (the execve entries where
 * there), else -errno and nothing added (no tracefs, not allowed): the COMMs
 * then stay on the sideband ring. Says nothing. */
int fr_record__add_name_tracepoints(struct fr_evlist *el);
/* sched:sched_process_exec's fields names.c reads (pid, old_pid, filename),
 * from its format: 0, or -EPROTO where a field is missing or of another kind. */
int fr_record__exec_fields(const struct fr_event *ev, struct fr_exec_fields *out);
/* /proc/sys/kernel/perf_event_paranoid, or 2 (the kernel's default) if unreadable. */
int fr_record__paranoid(void);

#endif
