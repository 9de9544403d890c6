/* ring/event.c: event name resolution: the software/hardware event tables and
 * tracepoint lookup (id and format text) through libtracefs.
 */
#include "config.h"
#include "ring/event.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tracefs.h>

struct named_event {
	const char *name;
	enum fr_event_kind kind;
	unsigned long long config;
};

static const struct named_event named_events[] = {
	{ "cpu-clock", FR_EVENT_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", FR_EVENT_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", FR_EVENT_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", FR_EVENT_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", FR_EVENT_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", FR_EVENT_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", FR_EVENT_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", FR_EVENT_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", FR_EVENT_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", FR_EVENT_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", FR_EVENT_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", FR_EVENT_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", FR_EVENT_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "cycles", FR_EVENT_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", FR_EVENT_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", FR_EVENT_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", FR_EVENT_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", FR_EVENT_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", FR_EVENT_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", FR_EVENT_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", FR_EVENT_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", FR_EVENT_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", FR_EVENT_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", FR_EVENT_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", FR_EVENT_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

#define NR_NAMED (sizeof(named_events) / sizeof(named_events[0]))

const char *const *fr_event__known_names(void)
{
	static const char *names[NR_NAMED + 1];

	if (!names[0])
		for (size_t i = 0; i < NR_NAMED; i++)
			names[i] = named_events[i].name;
	return names;
}

static void base_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->disabled = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->sample_id_all = 1;
}

/* subsys and name: [A-Za-z0-9_]+ each; anything else could walk tracefs. */
static bool valid_tp_part(const char *s, size_t n)
{
	if (n == 0 || n > 128)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_'))
			return false;
	}
	return true;
}

static int resolve_tracepoint(struct fr_event *ev, const char *spec, const char *colon)
{
	char sys[129], name[129];
	size_t ns = (size_t)(colon - spec), nn = strlen(colon + 1);
	char *id_txt = NULL, *end;
	unsigned long long id;
	int size = 0;

	if (!valid_tp_part(spec, ns) || !valid_tp_part(colon + 1, nn))
		return -EINVAL;
	memcpy(sys, spec, ns);
	sys[ns] = '\0';
	memcpy(name, colon + 1, nn + 1);
	if (!tracefs_tracing_dir())
		return -ENODEV;
	if (!tracefs_event_file_exists(NULL, sys, name, "id"))
		return -ENOENT;
	id_txt = tracefs_event_file_read(NULL, sys, name, "id", NULL);
	if (!id_txt)
		return errno ? -errno : -EIO;
	errno = 0;
	id = strtoull(id_txt, &end, 10);
	if (errno || end == id_txt || (*end && *end != '\n')) {
		free(id_txt);
		return -EIO;
	}
	free(id_txt);
	ev->format = tracefs_event_file_read(NULL, sys, name, "format", &size);
	if (!ev->format || size <= 0)
		return -EIO;
	ev->format_len = (size_t)size;
	ev->kind = FR_EVENT_TRACEPOINT;
	ev->attr.type = PERF_TYPE_TRACEPOINT;
	ev->attr.config = id;
	ev->attr.sample_period = 1;
	ev->attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	return 0;
}

static int resolve_named(struct fr_event *ev, const char *spec)
{
	for (size_t i = 0; i < NR_NAMED; i++) {
		if (strcmp(spec, named_events[i].name))
			continue;
		ev->kind = named_events[i].kind;
		ev->attr.type = ev->kind == FR_EVENT_HARDWARE ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
		ev->attr.config = named_events[i].config;
		if (ev->attr.config != PERF_COUNT_SW_DUMMY || ev->kind != FR_EVENT_SOFTWARE) {
			ev->attr.freq = 1;
			ev->attr.sample_freq = FR_DEFAULT_FREQ;
		}
		ev->attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				       PERF_SAMPLE_PERIOD;
		return 0;
	}
	return -ENOENT;
}

int fr_event__resolve(const char *spec, struct fr_event **out)
{
	struct fr_event *ev;
	const char *colon;
	int err;

	if (!spec || !*spec || strlen(spec) > 260)
		return -EINVAL;
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->name = strdup(spec);
	if (!ev->name) {
		err = -ENOMEM;
		goto out_err;
	}
	base_attr(&ev->attr);
	colon = strchr(spec, ':');
	if (colon)
		err = strchr(colon + 1, ':') ? -EINVAL : resolve_tracepoint(ev, spec, colon);
	else
		err = resolve_named(ev, spec);
	if (err)
		goto out_err;
	*out = ev;
	return 0;
out_err:
	fr_event__delete(ev);
	return err;
}

void fr_event__delete(struct fr_event *ev)
{
	if (!ev)
		return;
	free(ev->name);
	free(ev->format);
	free(ev->filter);
	free(ev);
}
