/* ring/event.c: event name resolution: the software/hardware event tables and
 * tracepoint lookup (id and format text) through libtracefs; and the list of
 * the events this machine has (flightrec list).
 */
#include "config.h"
#include "base/grow.h"
#include "ring/event.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <tracefs.h>
#include <unistd.h>

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
	if (!tracefs_event_file_exists(NULL, sys, name, "id")) {
		/* not there, or tracefs not readable by this user (mode 0700) */
		char *dir = tracefs_get_tracing_file("events");
		int err = dir && access(dir, X_OK) && errno == EACCES ? -EACCES : -ENOENT;

		tracefs_put_tracing_file(dir);
		return err;
	}
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

static bool is_named(const char *spec)
{
	for (size_t i = 0; i < NR_NAMED; i++)
		if (!strcmp(spec, named_events[i].name))
			return true;
	return false;
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

/* A trailing ":u", ":k", ":uk" or ":ku": its length (with the colon), 0 if
 * there is none; sets the event's modifier bits. */
static size_t parse_modifier(struct fr_event *ev, const char *spec)
{
	const char *c = strrchr(spec, ':');
	size_t n;

	if (!c)
		return 0;
	n = strlen(c + 1);
	if (n < 1 || n > 2 || strspn(c + 1, "uk") != n || (n == 2 && c[1] == c[2]))
		return 0;
	ev->mod_user = strchr(c + 1, 'u') != NULL;
	ev->mod_kernel = strchr(c + 1, 'k') != NULL;
	return n + 1;
}

void fr_event__set_sampling(struct fr_event *ev, uint64_t freq, uint64_t period)
{
	if (ev->kind != FR_EVENT_TRACEPOINT && period) {
		ev->attr.freq = 0;
		ev->attr.sample_period = period;
	} else if (ev->kind != FR_EVENT_TRACEPOINT && freq) {
		ev->attr.sample_freq = freq;
	} else if (ev->kind == FR_EVENT_TRACEPOINT && period) {
		ev->attr.sample_period = period;
	}
}

void fr_event__set_user_only(struct fr_event *ev)
{
	ev->attr.exclude_kernel = 1;
	ev->attr.exclude_hv = 1;
	ev->attr.exclude_callchain_kernel = 1;
}

static void apply_modifier(struct fr_event *ev)
{
	if (ev->mod_user && !ev->mod_kernel)
		fr_event__set_user_only(ev);
	if (ev->mod_kernel && !ev->mod_user)
		ev->attr.exclude_user = 1;
}

int fr_event__resolve(const char *spec, struct fr_event **out)
{
	struct fr_event *ev;
	const char *colon;
	char base[261];
	size_t mod;
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
	/* "cpu-clock:u", "sched:sched_switch:k": with one colon a modifier only
	 * after a named event (sched:k stays a tracepoint), with two always */
	mod = parse_modifier(ev, spec);
	memcpy(base, spec, strlen(spec) - mod);
	base[strlen(spec) - mod] = '\0';
	if (mod && !strchr(base, ':') && !is_named(base))
		mod = 0;
	if (!mod) {
		ev->mod_user = ev->mod_kernel = 0;
		snprintf(base, sizeof(base), "%s", spec);
	}
	colon = strchr(base, ':');
	if (colon)
		err = strchr(colon + 1, ':') ? -EINVAL : resolve_tracepoint(ev, base, colon);
	else
		err = resolve_named(ev, base);
	if (!err && ev->kind == FR_EVENT_TRACEPOINT && ev->mod_user && !ev->mod_kernel)
		err = -EOPNOTSUPP;
	if (err)
		goto out_err;
	apply_modifier(ev);
	*out = ev;
	return 0;
out_err:
	fr_event__delete(ev);
	return err;
}

/* "offset:N;" or "size:N;" after key in line: N, or -1. */
static long format_number(const char *line, const char *end, const char *key)
{
	const char *p = strstr(line, key);
	unsigned long v;
	char *e;

	if (!p || p >= end)
		return -1;
	p += strlen(key);
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	v = strtoul(p, &e, 10);
	return errno || e >= end || *e != ';' || v > 65535 ? -1 : (long)v;
}

/* One "\tfield:DECL NAME[...];\toffset:N;\tsize:N;..." line: whether NAME
 * is name (the declaration's last identifier, before any [..]). */
static bool field_named(const char *decl, const char *semi, const char *name, bool *data_loc)
{
	const char *e = semi, *b;
	size_t n = strlen(name);

	if (e > decl && e[-1] == ']')
		while (e > decl && *e != '[')
			e--;
	b = e;
	while (b > decl && (b[-1] == '_' || (b[-1] >= 'a' && b[-1] <= 'z') ||
			    (b[-1] >= 'A' && b[-1] <= 'Z') || (b[-1] >= '0' && b[-1] <= '9')))
		b--;
	*data_loc = !strncmp(decl, "__data_loc ", 11);
	return (size_t)(e - b) == n && !memcmp(b, name, n);
}

int fr_event__field(const struct fr_event *ev, const char *name, struct fr_tp_field *f)
{
	const char *p = ev->format, *end = ev->format ? ev->format + ev->format_len : NULL;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		const char *decl = strstr(p, "field:"), *semi;
		long off, size;
		bool dl;

		if (decl && decl < le && (semi = memchr(decl, ';', (size_t)(le - decl))) &&
		    field_named(decl + 6, semi, name, &dl)) {
			off = format_number(semi, le, "offset:");
			size = format_number(semi, le, "size:");
			if (off < 0 || size <= 0 || off + size > 65535 || (dl && size != 4))
				return -EBADMSG;
			f->offset = (uint16_t)off;
			f->size = (uint16_t)size;
			f->data_loc = dl;
			return 0;
		}
		p = nl ? nl + 1 : end;
	}
	return -ENOENT;
}

bool fr_event__has_pmu(void)
{
	struct perf_event_attr a;
	long fd;

	base_attr(&a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

int fr_event__bpf_output(const char *name, struct fr_event **out)
{
	struct fr_event *ev = calloc(1, sizeof(*ev));

	if (!ev || !(ev->name = strdup(name))) {
		free(ev);
		return -ENOMEM;
	}
	base_attr(&ev->attr);
	ev->kind = FR_EVENT_SOFTWARE;
	ev->attr.type = PERF_TYPE_SOFTWARE;
	ev->attr.config = PERF_COUNT_SW_BPF_OUTPUT;
	ev->attr.sample_period = 1;
	ev->attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	*out = ev;
	return 0;
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

/* ---- the list of events (flightrec list) ---- */

struct listed {
	char *name;
	enum fr_event_kind kind;
	bool supported;
};

static int cmp_listed(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;

	if (x->kind != y->kind)   /* hardware, software, then tracepoints */
		return x->kind == FR_EVENT_HARDWARE ? -1 : y->kind == FR_EVENT_HARDWARE ? 1
		       : x->kind == FR_EVENT_SOFTWARE ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Whether this machine counts a hardware event (a PMU exists and has it). */
static bool hw_supported(unsigned long long config)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int add_listed(struct listed **l, size_t *n, size_t *cap, const char *name,
		      enum fr_event_kind kind, bool supported)
{
	if (fr_grow(l, cap, *n + 1, sizeof(**l), 256))
		return -ENOMEM;
	(*l)[*n].name = strdup(name);
	if (!(*l)[*n].name)
		return -ENOMEM;
	(*l)[*n].kind = kind;
	(*l)[(*n)++].supported = supported;
	return 0;
}

static int list_tracepoints(const char *glob, struct listed **l, size_t *n, size_t *cap)
{
	char **systems, name[260];
	int err = 0;

	if (!tracefs_tracing_dir())
		return -ENODEV;
	systems = tracefs_event_systems(NULL);
	if (!systems)
		return errno ? -errno : -ENODEV;
	for (size_t s = 0; systems[s] && !err; s++) {
		char **events = tracefs_system_events(NULL, systems[s]);

		for (size_t e = 0; events && events[e] && !err; e++) {
			snprintf(name, sizeof(name), "%s:%s", systems[s], events[e]);
			if (!glob || !fnmatch(glob, name, 0))
				err = add_listed(l, n, cap, name, FR_EVENT_TRACEPOINT, true);
		}
		tracefs_list_free(events);
	}
	tracefs_list_free(systems);
	return err;
}

int fr_event__list(const char *glob, fr_event_list_cb cb, void *ctx)
{
	struct listed *l = NULL;
	size_t n = 0, cap = 0;
	int err = 0, tp_err;

	for (size_t i = 0; i < NR_NAMED && !err; i++) {
		const struct named_event *e = &named_events[i];

		if (glob && fnmatch(glob, e->name, 0))
			continue;
		err = add_listed(&l, &n, &cap, e->name, e->kind,
				 e->kind != FR_EVENT_HARDWARE || hw_supported(e->config));
	}
	/* a glob with ':' or none names tracepoints; plain software names skip tracefs */
	tp_err = err || (glob && !strchr(glob, ':') && !strpbrk(glob, "*?[")) ? 0
		 : list_tracepoints(glob, &l, &n, &cap);
	if (!err && n)
		qsort(l, n, sizeof(*l), cmp_listed);
	for (size_t i = 0; i < n && !err; i++)
		err = cb(ctx, l[i].name, l[i].kind, l[i].supported);
	for (size_t i = 0; i < n; i++)
		free(l[i].name);
	free(l);
	return err ? err : tp_err;
}
