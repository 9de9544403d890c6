/* src/record/events.c: the events of a recording, resolved and given their
 * attributes (-e, -F/-c, -g/--call-graph, --filter, --trigger; cycles or
 * cpu-clock without -e; --off-cpu's sched events, --off-cpu-thresh's offcpu
 * event, the name tracepoints): what `flightrec record` opens, and bench/floor too.
 */
#include "config.h"
#include "src/record/events.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring/event.h"
#include "src/record/waits.h"
#include "src/util.h"

/* The user registers a remote DWARF unwinder needs: all general purpose ones
 * (as perf records them), not the segment registers. */
#if defined(__x86_64__)
#include <asm/perf_regs.h>
#define FR_REGS_USER_MASK                                                              \
	(((1ull << PERF_REG_X86_64_MAX) - 1) &                                            \
	 ~((1ull << PERF_REG_X86_DS) | (1ull << PERF_REG_X86_ES) | (1ull << PERF_REG_X86_FS) | \
	   (1ull << PERF_REG_X86_GS)))
#else
#define FR_REGS_USER_MASK 0ull
#endif

/* /proc/sys/kernel/perf_event_paranoid, or 2 (the kernel's default) if unreadable. */
int fr_record__paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

static void set_callgraph(const struct fr_record_opts *o, struct fr_event *ev)
{
	if (o->callgraph == CG_FP)
		ev->attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->callgraph == CG_DWARF) {
		/* kernel part from the callchain, user part unwound from the stack */
		ev->attr.sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
					PERF_SAMPLE_STACK_USER;
		ev->attr.exclude_callchain_user = 1;
		ev->attr.sample_regs_user = FR_REGS_USER_MASK;
		ev->attr.sample_stack_user = o->stack_size;
	}
}

/* --off-cpu-thresh: the event its BPF programs write the switches and the
 * stacks of waits into (src/record/waits.c; all in the raw data). */
static int add_wait_stacks(struct fr_record_opts *o, struct fr_evlist *el, bool user_only)
{
	struct fr_event *ev;
	int err = fr_event__bpf_output(FR_WAITS_EVENT, &ev);

	if (err)
		return FR_EXIT_ERROR;
	if (user_only)
		fr_event__set_user_only(ev);
	return fr_evlist__add(el, ev) ? FR_EXIT_ERROR : FR_EXIT_OK;
}

/* Resolve -e names and apply -F/-c/-g; user_only: the kernel refused kernel
 * samples, so events that did not ask for them (:k) exclude the kernel.
 * Returns an exit code. */
static int build_evlist(struct fr_record_opts *o, struct fr_evlist *el, bool user_only)
{
	for (int i = 0; i < o->nr_events; i++) {
		struct fr_event *ev;
		int err = fr_event__resolve(o->events[i], &ev);

		if (err == -ENOENT) {
			fr_err(o->events[i], "unknown event (tracepoints are subsys:name, see "
			       "/sys/kernel/tracing/events; software events: cpu-clock, "
			       "page-faults, context-switches, ...)");
			return FR_EXIT_USAGE;
		}
		if (err == -EINVAL) {
			fr_err(o->events[i], "malformed event name (modifiers: :u, :k, :uk)");
			return FR_EXIT_USAGE;
		}
		if (err == -EOPNOTSUPP) {
			fr_err(o->events[i], "a tracepoint is a kernel event: :u (user space only) "
			       "would record nothing");
			return FR_EXIT_USAGE;
		}
		if (err == -ENODEV) {
			fr_err(o->events[i], "tracefs is neither mounted nor mountable at /sys/kernel/tracing");
			return FR_EXIT_DENIED;
		}
		if (err == -EACCES) {
			fr_err(o->events[i], "permission denied: tracefs (/sys/kernel/tracing) is "
			       "not readable by this user; tracepoints need root or CAP_PERFMON, or "
			       "tracefs opened to the user and /proc/sys/kernel/perf_event_paranoid "
			       "-1 (it is %d)", fr_record__paranoid());
			return FR_EXIT_DENIED;
		}
		if (err) {
			fr_err(o->events[i], "%s", strerror(-err));
			return FR_EXIT_ERROR;
		}
		fr_event__set_sampling(ev, o->freq, o->period);
		set_callgraph(o, ev);
		if (user_only && !ev->mod_kernel)
			fr_event__set_user_only(ev);
		ev->switches = o->off_cpu && !strcmp(o->events[i], "sched:sched_switch");
		if (o->filters[i] && ev->kind != FR_EVENT_TRACEPOINT) {
			fr_err(o->events[i], "--filter applies to tracepoints only");
			fr_event__delete(ev);
			return FR_EXIT_USAGE;
		}
		if (o->filters[i] && !(ev->filter = strdup(o->filters[i]))) {
			fr_event__delete(ev);
			return FR_EXIT_ERROR;
		}
		if (fr_evlist__add(el, ev))
			return FR_EXIT_ERROR;
	}
	return FR_EXIT_OK;
}

/* One trigger event (name, for --trigger or --trigger-latency: what): resolved
 * like -e, sampled on every occurrence. */
static int trigger_event(const char *name, const char *what, bool user_only, struct fr_event **out)
{
	struct fr_event *ev;
	int err = fr_event__resolve(name, &ev);

	if (err) {
		fr_err(name, "%s: %s", what, err == -ENOENT ? "unknown event" :
		       err == -EINVAL ? "malformed event name" :
		       err == -EACCES ? "permission denied: tracefs (/sys/kernel/tracing) is "
					"not readable by this user (tracepoints need root)" :
		       strerror(-err));
		return err == -ENOENT || err == -EINVAL ? FR_EXIT_USAGE :
		       err == -EACCES ? FR_EXIT_DENIED : FR_EXIT_ERROR;
	}
	ev->attr.freq = 0;
	ev->attr.sample_period = 1;
	if (user_only && !ev->mod_kernel)
		fr_event__set_user_only(ev);
	*out = ev;
	return FR_EXIT_OK;
}

/* --trigger's event, or --trigger-latency's pair (tracepoints: their RAW
 * common_type tells them apart in the one trigger ring). */
static int add_trigger(struct fr_record_opts *o, struct fr_evlist *el, bool user_only)
{
	struct fr_event *ev, *end;
	int ret;

	if (!o->lat_begin) {
		if ((ret = trigger_event(o->trigger, "--trigger", user_only, &ev)))
			return ret;
		return fr_evlist__set_trigger(el, ev, o->trigger_filter) ? FR_EXIT_ERROR : FR_EXIT_OK;
	}
	if ((ret = trigger_event(o->lat_begin, "--trigger-latency", user_only, &ev)))
		return ret;
	if ((ret = trigger_event(o->lat_end, "--trigger-latency", user_only, &end))) {
		fr_event__delete(ev);
		return ret;
	}
	if (ev->kind != FR_EVENT_TRACEPOINT || end->kind != FR_EVENT_TRACEPOINT ||
	    ev->attr.config == end->attr.config) {
		fr_err("--trigger-latency", "BEGIN and END must be two tracepoints (%s, %s)",
		       o->lat_begin, o->lat_end);
		fr_event__delete(ev);
		fr_event__delete(end);
		return FR_EXIT_USAGE;
	}
	return fr_evlist__set_trigger_pair(el, ev, end) ? FR_EXIT_ERROR : FR_EXIT_OK;
}

/* The events, resolved: what -e named, or cycles (cpu-clock without a PMU). */
int fr_record__build_evlist(struct fr_record_opts *o, struct fr_evlist **el, bool user_only)
{
	int ret;

	fr_evlist__delete(*el);
	*el = fr_evlist__new();
	ret = *el ? build_evlist(o, *el, user_only) : FR_EXIT_ERROR;
	if (!ret && o->off_cpu_thresh_ns)
		ret = add_wait_stacks(o, *el, user_only);
	if (!ret && (o->trigger || o->lat_begin))
		ret = add_trigger(o, *el, user_only);
	return ret;
}

void fr_record__off_cpu_events(struct fr_record_opts *o)
{
	static const char *const names[] = { "sched:sched_switch", "sched:sched_waking" };

	for (size_t k = 0; o->off_cpu && k < 2; k++) {
		bool there = false;

		for (int i = 0; i < o->nr_events && !there; i++)
			there = !strcmp(o->events[i], names[k]);
		if (!there && o->nr_events < FR_RECORD_MAX_EVENTS)
			o->events[o->nr_events++] = names[k];
	}
}

int fr_record__exec_fields(const struct fr_event *ev, struct fr_exec_fields *out)
{
	struct fr_tp_field pid, old, file;

	if (fr_event__field(ev, "pid", &pid) || fr_event__field(ev, "old_pid", &old) ||
	    fr_event__field(ev, "filename", &file) || pid.size != 4 || pid.data_loc ||
	    old.size != 4 || old.data_loc || !file.data_loc)
		return -EPROTO;
	*out = (struct fr_exec_fields){ pid.offset, old.offset, file.offset };
	return 0;
}

int fr_record__add_name_tracepoints(struct fr_evlist *el)
{
	static const char *const names[] = { "sched:sched_process_exec", "syscalls:sys_enter_execve",
					     "syscalls:sys_enter_execveat",
					     "sched:sched_process_exit" };

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		struct fr_event *ev;
		int err = fr_event__resolve(names[k], &ev);

		if (err && !k)
			return err;
		if (!err && !k && (err = fr_record__exec_fields(ev, &(struct fr_exec_fields){ 0 }))) {
			fr_event__delete(ev);
			return err;   /* a kernel whose format differs: the sideband COMMs */
		}
		if (!err && (err = fr_evlist__add_name_tracepoint(el, ev)) && !k)
			return err;
	}
	return 0;
}

/* No -e: perf's default, cycles where the machine has a PMU, else cpu-clock. */
void fr_record__default_event(struct fr_record_opts *o)
{
	bool pmu = fr_event__has_pmu();

	o->events[0] = pmu ? "cycles" : "cpu-clock";
	o->nr_events = 1;
	if (o->period)
		fr_info("no -e given: recording %s every %llu events%s", o->events[0],
			(unsigned long long)o->period, pmu ? "" : " (no hardware PMU for cycles)");
	else
		fr_info("no -e given: recording %s at %llu Hz%s", o->events[0],
			(unsigned long long)(o->freq ? o->freq : FR_DEFAULT_FREQ),
			pmu ? "" : " (no hardware PMU for cycles)");
}
