/* ring/event.h: turning an event name ("syscalls:sys_enter_read", "cpu-clock",
 * "cycles") into a perf_event_attr with flightrec's per-kind defaults.
 */
#ifndef FR_EVENT_H
#define FR_EVENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <linux/perf_event.h>

enum fr_event_kind {
	FR_EVENT_TRACEPOINT,
	FR_EVENT_SOFTWARE,
	FR_EVENT_HARDWARE,
};

struct fr_event {
	char *name;                  /* canonical name */
	enum fr_event_kind kind;
	struct perf_event_attr attr; /* defaults: see fr_event__resolve */
	char *format;                /* tracepoint format text, NUL-terminated */
	size_t format_len;
	unsigned mod_user : 1;       /* ":u" given: exclude_kernel, exclude_hv */
	unsigned mod_kernel : 1;     /* ":k" given: exclude_user (both: ":uk") */
	char *filter;                /* tracefs filter (PERF_EVENT_IOC_SET_FILTER), or NULL */
	unsigned switches : 1;       /* per-task targets: context_switch too (the task's own
	                              * switch-in and -out as PERF_RECORD_SWITCH, in its ring) */
};

/* Default sampling frequency of software and hardware events (Hz). */
#define FR_DEFAULT_FREQ 4000

/*
 * Resolve a name. Tracepoints (subsys:name) read their id and format text
 * from tracefs, which libtracefs finds or mounts. Defaults, chosen so each
 * kind records only what its report needs:
 *   tracepoint: period 1, sample_type TID|TIME|RAW (no IP: the tracepoint is the place)
 *   software/hardware: freq FR_DEFAULT_FREQ, sample_type IP|TID|TIME|PERIOD
 *   all: use_clockid with CLOCK_MONOTONIC, disabled; no CPU bit (rings are per CPU).
 * Modifiers as perf has them: NAME:u (user space only: exclude_kernel and
 * exclude_hv), NAME:k (kernel only: exclude_user), NAME:uk or NAME:ku (both,
 * said explicitly); tracepoints take them after their own colon
 * (sched:sched_switch:k).
 * Returns 0; -EINVAL for a malformed name or modifier; -ENOENT for an unknown
 * event or tracepoint; -EOPNOTSUPP for :u on a tracepoint (a kernel event:
 * user-only leaves nothing); -ENODEV when tracefs can be neither found nor
 * mounted; -EACCES when tracefs's events are not searchable by this user (a
 * permission problem, not an unknown name); -ENOMEM.
 */
int fr_event__resolve(const char *spec, struct fr_event **out);
void fr_event__delete(struct fr_event *ev);
/* A software event that BPF programs write samples into (bpf_perf_event_output,
 * PERF_COUNT_SW_BPF_OUTPUT), every one kept: sample_type TID|TIME|CALLCHAIN|RAW,
 * the callchain taken by the perf core where the program runs. 0 or -ENOMEM. */
int fr_event__bpf_output(const char *name, struct fr_event **out);

/* Record user space only (exclude_kernel, exclude_hv, and no kernel part of
 * callchains): for an event the kernel refused kernel samples of. */
void fr_event__set_user_only(struct fr_event *ev);
/* -F/-c: sample every period events (tracepoints too), else freq per second
 * (not tracepoints: they sample every hit); 0 leaves the default. */
void fr_event__set_sampling(struct fr_event *ev, uint64_t freq, uint64_t period);

/* A field of a tracepoint's raw data, from its format text: offset and size
 * (a __data_loc field is a u32: the string's offset | its length << 16). */
struct fr_tp_field {
	uint16_t offset, size;
	bool data_loc;
};
/* Field name of ev (a tracepoint) from its format text: 0, -ENOENT (no
 * such field), -EBADMSG (its line does not parse, or offset + size past
 * 65535). */
int fr_event__field(const struct fr_event *ev, const char *name, struct fr_tp_field *f);

/* Whether a hardware cycles counter can be opened here (for this thread,
 * user space only): the default event is cycles where it can, as in perf. */
bool fr_event__has_pmu(void);

/* Every event whose name matches the fnmatch glob (NULL: all), hardware
 * first, then software, then tracepoints (from tracefs, found or mounted by
 * libtracefs), each kind sorted by name. supported: false for a hardware
 * event this machine cannot count (no PMU, or not this one). A non-zero
 * return of cb stops the walk and is returned. Returns 0, -ENOMEM, or
 * -ENODEV when tracefs can be neither found nor mounted (the other events
 * were listed). */
typedef int (*fr_event_list_cb)(void *ctx, const char *name, enum fr_event_kind kind,
				bool supported);
int fr_event__list(const char *glob, fr_event_list_cb cb, void *ctx);

#endif
