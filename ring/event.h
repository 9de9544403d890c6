/* ring/event.h: turning an event name ("syscalls:sys_enter_read", "cpu-clock",
 * "cycles") into a perf_event_attr with flightrec's per-kind defaults.
 */
#ifndef FR_EVENT_H
#define FR_EVENT_H

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
	char *filter;                /* tracefs filter (PERF_EVENT_IOC_SET_FILTER), or NULL */
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
 * Returns 0; -EINVAL for a malformed name; -ENOENT for an unknown event or
 * tracepoint; -ENODEV when tracefs can be neither found nor mounted; -ENOMEM.
 */
int fr_event__resolve(const char *spec, struct fr_event **out);
void fr_event__delete(struct fr_event *ev);

/* The list of software and hardware event names, for --help and errors. */
const char *const *fr_event__known_names(void);

#endif
