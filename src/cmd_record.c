/* src/cmd_record.c: `flightrec record`: its options, checked, then one
 * call: fr_record__run (src/record/run.c).
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <malloc.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ring/evlist.h"
#include "src/cli.h"
#include "src/util.h"
#include "src/record/control.h"
#include "src/record/record.h"

enum {
	OPT_BACKWARD = 1000,
	OPT_FORWARD,
	OPT_NAME,
	OPT_RUN_DIR,
	OPT_NO_FINAL,
	OPT_CALL_GRAPH,
	OPT_WINDOW_SIZE,
	OPT_WINDOW_TIME,
	OPT_TRIGGER,
	OPT_TRIGGER_FILTER,
	OPT_TRIGGER_AFTER,
	OPT_MAX_SNAPSHOTS,
	OPT_MAX_FILES,
	OPT_READER_CPUS,
	OPT_FILTER,
	OPT_INCLUDE_SELF,
	OPT_EXEC_ON_SNAPSHOT,
	OPT_SWITCH_OUTPUT,
	OPT_KEEP,
	OPT_OFF_CPU,
	OPT_OFF_CPU_THRESH,
	OPT_TRIGGER_LATENCY,
	OPT_PUSH,
	OPT_PUSH_HEADER,
	OPT_PUSH_HEADER_FILE,
	OPT_PUSH_GZIP,
	OPT_PUSH_TIMEOUT,
	OPT_PUSH_SPOOL,
};

/* What record parses: its options, and --push's (the pusher's, src/cmd_push.c) */
struct record_args {
	struct fr_record_opts o;   /* first: argp's input is also this */
	struct fr_push_cfg push;
	char lat_begin[128], lat_end[128];   /* --trigger-latency's events */
};

static const struct argp_option record_options[] = {
	{ "event", 'e', "EVENT", 0, "event to record (repeatable, or comma separated): "
	  "subsys:tracepoint, cpu-clock, task-clock, page-faults, context-switches, "
	  "cpu-migrations, cycles, instructions, ...; modifiers :u (user only), :k (kernel only) "
	  "(default: cycles, or cpu-clock without a PMU)", 0 },
	{ "backward", OPT_BACKWARD, NULL, 0, "overwrite rings, written out on a trigger (default "
	  "system-wide)", 0 },
	{ "forward", OPT_FORWARD, NULL, 0, "stream every record into a file (per-CPU reader "
	  "threads), instead of keeping a window (default with -p or -- COMMAND); a snapshot "
	  "or a trigger completes the file and recording goes on into the next", 0 },
	{ "switch-output", OPT_SWITCH_OUTPUT, "SIZE|TIME", 0, "forward: complete the file and go "
	  "on into the next when it reaches SIZE (unit B, K, M or G: 64M) or TIME (unit ms, s, m "
	  "or h: 10s, 10m is ten minutes), or only on snapshots (signal); files are written "
	  ".part and renamed when complete; implies --forward", 0 },
	{ "keep", OPT_KEEP, "DURATION[,SIZE]", 0, "drain the rings continuously and keep the "
	  "last DURATION compressed in memory, at most SIZE bytes (default 256M, or 1/8 of "
	  "RAM if less), written out on a trigger as --backward's window is", 0 },
	{ "all-cpus", 'a', NULL, 0, "system-wide (the default without -p or a command)", 0 },
	{ "pid", 'p', "PID[,PID]", 0, "record existing processes (all threads, and children)", 0 },
	{ "freq", 'F', "HZ", 0, "sampling frequency of software/hardware events (default 4000)", 0 },
	{ "count", 'c', "PERIOD", 0, "sample every PERIOD events", 0 },
	{ NULL, 'g', NULL, 0, "record frame-pointer callchains (--call-graph fp)", 0 },
	{ "call-graph", OPT_CALL_GRAPH, "fp|dwarf[,SIZE]", 0, "callchains: frame pointers, or "
	  "user registers and SIZE bytes of user stack (default 8192, at most 65528) unwound "
	  "by report with libunwind", 0 },
	{ "mmap-pages", 'm', "PAGES|SIZE", 0, "per-CPU ring: pages or a size like 4M, rounded "
	  "up to a power of two pages (default 128 pages backward, 1024 forward)", 0 },
	{ "window-size", OPT_WINDOW_SIZE, "SIZE", 0, "the same as -m: the per-CPU window in bytes", 0 },
	{ "window-time", OPT_WINDOW_TIME, "DURATION", 0, "at a snapshot, drop records older than "
	  "DURATION (e.g. 10s, 500ms); warns when the ring holds less (not --forward)", 0 },
	{ "trigger", OPT_TRIGGER, "EVENT", 0, "snapshot when EVENT (a tracepoint or software event) "
	  "occurs; user space wakes only then", 0 },
	{ "trigger-filter", OPT_TRIGGER_FILTER, "FILTER", 0, "tracefs filter for --trigger, e.g. "
	  "'sig == 10'", 0 },
	{ "trigger-latency", OPT_TRIGGER_LATENCY, "BEGIN,END,DURATION", 0, "snapshot when one "
	  "thread's BEGIN -> END (tracepoints) took longer than DURATION; syscall:NAME,DURATION "
	  "for syscalls:sys_enter_NAME,syscalls:sys_exit_NAME (e.g. syscall:fsync,50ms)", 0 },
	{ "trigger-after", OPT_TRIGGER_AFTER, "DURATION", 0, "keep recording DURATION after a "
	  "--trigger event or a --trigger-latency pair before the snapshot (default 0)", 0 },
	{ "max-snapshots", OPT_MAX_SNAPSHOTS, "N/PERIOD", 0, "at most N snapshots per PERIOD "
	  "(e.g. 3/1m); further triggers are refused, and triggers during a pending snapshot "
	  "join it", 0 },
	{ "max-files", OPT_MAX_FILES, "N", 0, "keep only the newest N files this recorder wrote "
	  "(snapshots, or --forward's completed files)", 0 },
	{ "reader-cpus", OPT_READER_CPUS, "LIST", 0, "--forward/--keep: pin the reader threads "
	  "to these CPUs (e.g. 3 or 2-3), 'own': each to its ring's CPU, or 'any': unpinned "
	  "at nice 0; by default unpinned at nice -10 (an idle CPU's, not the workload's)", 0 },
	{ "output", 'o', "DIR", 0, "directory for snapshot files (default .)", 0 },
	{ "name", OPT_NAME, "NAME", 0, "recorder name, for several recorders (default 'default'; "
	  "cmd-BASENAME-PID with a command, pid-PID with -p)", 0 },
	{ "run-dir", OPT_RUN_DIR, "DIR", 0, "where control sockets live (default /run/flightrec, "
	  "or $FLIGHTREC_RUN_DIR)", 0 },
	{ "no-final-snapshot", OPT_NO_FINAL, NULL, 0, "do not write a snapshot when stopped by "
	  "SIGINT/SIGTERM (a recorded command's exit always writes one)", 0 },
	{ "compression-level", 'z', "N", 0, "zstd level 1..19, or -7..-1: zstd's faster levels, larger output (default 1)", 0 },
	{ "quiet", 'q', NULL, 0, "no status lines", 0 },
	{ "filter", OPT_FILTER, "EXPR", 0, "tracefs filter for the preceding -e tracepoint, e.g. "
	  "'count == 7' (the kernel's filter syntax)", 0 },
	{ "cgroup", 'G', "CGROUP", 0, "system-wide, only the tasks of this cgroup (v2, a path "
	  "under its mount, e.g. system.slice/nginx.service)", 0 },
	{ "off-cpu", OPT_OFF_CPU, NULL, 0, "also every context switch with its switch-out stack "
	  "(sched:sched_switch; a task's own switch-in per -p or command) and every wakeup with "
	  "the waker's stack (sched:sched_waking), for off-CPU time, scheduler delay and who "
	  "ended each wait (report --off-cpu, --wakers)", 0 },
	{ "off-cpu-thresh", OPT_OFF_CPU_THRESH, "DURATION[,RATE]", 0, "system-wide, from "
	  "BPF: every context switch (state, scheduler delay) without a stack, and the stack of "
	  "every wait of DURATION or more (10ms: the service's default; at most 4s), shorter "
	  "waits' stacks sampled in proportion to their length, about RATE a second per CPU at "
	  "most (default 50)", 0 },
	{ "include-self", OPT_INCLUDE_SELF, NULL, 0, "keep the recorder's own threads in "
	  "system-wide tracepoints (left out by default)", 0 },
	{ "exec-on-snapshot", OPT_EXEC_ON_SNAPSHOT, "CMD", 0, "after each snapshot file (forward: each completed file) is "
	  "written, run /bin/sh -c CMD with the file as $1 and in $FLIGHTREC_FILE", 0 },
	{ "push", OPT_PUSH, "URL", 0, "send each snapshot file, once written, to this OTLP/HTTP "
	  "profiles endpoint (as `flightrec push` does), from a process of its own; one not "
	  "delivered stays marked FILE.push and is retried (see doc/otlp.md)", 0 },
	{ "push-header", OPT_PUSH_HEADER, "'NAME: VALUE'", 0, "--push: an HTTP header (repeatable)", 0 },
	{ "push-header-file", OPT_PUSH_HEADER_FILE, "FILE", 0, "--push: header lines from FILE "
	  "(mode 600)", 0 },
	{ "push-gzip", OPT_PUSH_GZIP, NULL, 0, "--push: gzip the requests", 0 },
	{ "push-timeout", OPT_PUSH_TIMEOUT, "SECS", 0, "--push: of each request (default 10)", 0 },
	{ "push-spool", OPT_PUSH_SPOOL, "N", 0, "--push: at most N snapshots wait for the endpoint "
	  "(default 100); past that the oldest are not pushed (kept on disk, said)", 0 },
	{ 0 }
};

static void usage_error(struct argp_state *st, struct fr_record_opts *o, const char *what,
			const char *why)
{
	fr_err(what, "%s", why);
	o->usage_err = 1;
	(void)st;
}

static void add_events(struct argp_state *st, struct fr_record_opts *o, char *arg)
{
	char *save = NULL;

	for (char *tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nr_events == FR_RECORD_MAX_EVENTS) {
			usage_error(st, o, "-e", "too many events (at most 64)");
			return;
		}
		o->events[o->nr_events++] = tok;
	}
}

static int parse_callgraph(const char *arg, struct fr_record_opts *o)
{
	uint64_t v;

	if (!strcmp(arg, "fp")) {
		o->callgraph = CG_FP;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ','))
		return -EINVAL;
	o->callgraph = CG_DWARF;
	o->stack_size = FR_STACK_DEFAULT;
	if (!arg[5])
		return 0;
	if (fr_parse__u64(arg + 6, 8, 65528, &v) || (v & 7))
		return -EINVAL;
	o->stack_size = (uint32_t)v;
	return 0;
}

/* --switch-output, as perf reads it: "signal" (snapshots only), a size when
 * its unit is B, K, M or G (64M, 1GiB; k and g too), else a duration (10s,
 * 500ms; 10m is ten minutes, as perf has it); a number needs its unit. */
static int parse_switch(const char *arg, struct fr_record_opts *o)
{
	size_t n = strlen(arg);

	o->switch_output = arg;
	o->switch_bytes = o->switch_ns = 0;
	if (!strcmp(arg, "signal"))
		return 0;
	if (!n || !strchr("BKMGbkmgsh", arg[n - 1]))
		return -EINVAL;
	if (strchr("BKMGbkg", arg[n - 1]))
		return fr_parse__size(arg, &o->switch_bytes) || o->switch_bytes < 4096 ? -EINVAL : 0;
	return fr_parse__duration(arg, &o->switch_ns) || o->switch_ns < 100000000ull ? -EINVAL : 0;
}

/* --keep DURATION[,SIZE]: DURATION > 0; SIZE at least 1M (a chunk). */
static int parse_keep(const char *arg, struct fr_record_opts *o)
{
	const char *comma = strchr(arg, ',');
	char dur[64];
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);

	if (n >= sizeof(dur))
		return -EINVAL;
	memcpy(dur, arg, n);
	dur[n] = '\0';
	if (fr_parse__duration(dur, &o->keep_ns) || !o->keep_ns)
		return -EINVAL;
	o->keep_bytes = 0;
	if (comma && (fr_parse__size(comma + 1, &o->keep_bytes) || o->keep_bytes < (1u << 20)))
		return -EINVAL;
	return 0;
}

/* --off-cpu-thresh DURATION[,RATE] into o. */
static int parse_thresh(const char *arg, struct fr_record_opts *o)
{
	const char *comma = strchr(arg, ',');
	char dur[64];
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);
	uint64_t rate = 0;

	if (n >= sizeof(dur))
		return -EINVAL;
	memcpy(dur, arg, n);
	dur[n] = '\0';
	if (fr_parse__duration(dur, &o->off_cpu_thresh_ns) || o->off_cpu_thresh_ns < 1000 ||
	    o->off_cpu_thresh_ns > FR_RECORD_MAX_THRESH_NS)
		return -EINVAL;
	if (comma && fr_parse__u64(comma + 1, 1, FR_RECORD_MAX_STACK_RATE, &rate))
		return -EINVAL;
	o->off_cpu_stack_rate = (uint32_t)rate;
	return 0;
}

/* --trigger-latency BEGIN,END,DURATION or syscall:NAME,DURATION into ra. */
static int parse_latency(const char *arg, struct record_args *ra)
{
	const char *comma = strrchr(arg, ','), *mid;
	char spec[256];
	size_t n;

	if (!comma || fr_parse__duration(comma + 1, &ra->o.lat_ns) || !ra->o.lat_ns ||
	    (n = (size_t)(comma - arg)) == 0 || n >= sizeof(spec))
		return -EINVAL;
	memcpy(spec, arg, n);
	spec[n] = '\0';
	if (!strncmp(spec, "syscall:", 8) && !strchr(spec, ',')) {
		if (!spec[8] || strlen(spec + 8) > 64 || strspn(spec + 8, "abcdefghijklmnopqrstuvwxyz"
							      "0123456789_") != strlen(spec + 8))
			return -EINVAL;
		snprintf(ra->lat_begin, sizeof(ra->lat_begin), "syscalls:sys_enter_%s", spec + 8);
		snprintf(ra->lat_end, sizeof(ra->lat_end), "syscalls:sys_exit_%s", spec + 8);
	} else if ((mid = strchr(spec, ',')) && mid > spec && mid[1] && !strchr(mid + 1, ',') &&
		   (size_t)(mid - spec) < sizeof(ra->lat_begin) && strlen(mid + 1) < sizeof(ra->lat_end)) {
		snprintf(ra->lat_begin, sizeof(ra->lat_begin), "%.*s", (int)(mid - spec), spec);
		snprintf(ra->lat_end, sizeof(ra->lat_end), "%s", mid + 1);
	} else {
		return -EINVAL;
	}
	ra->o.lat_begin = ra->lat_begin;
	ra->o.lat_end = ra->lat_end;
	return 0;
}

static error_t record_parse(int key, char *arg, struct argp_state *st)
{
	struct fr_record_opts *o = st->input;
	struct fr_push_cfg *push = &((struct record_args *)st->input)->push;
	uint64_t v;
	int err;

	switch (key) {
	case 'e': add_events(st, o, arg); break;
	case OPT_BACKWARD: o->forward = false; o->mode_given = true; break;
	case OPT_FORWARD: o->forward = true; o->mode_given = true; break;
	case 'a': o->system_wide = true; break;
	case 'p': o->pids = arg; break;
	case 'F':
		if (fr_parse__u64(arg, 1, 1000000, &o->freq))
			usage_error(st, o, "-F", "expected a frequency in Hz, 1..1000000");
		break;
	case 'c':
		if (fr_parse__u64(arg, 1, UINT64_MAX >> 1, &o->period))
			usage_error(st, o, "-c", "expected a period, a positive integer");
		break;
	case 'g': o->callgraph = CG_FP; break;
	case OPT_CALL_GRAPH:
		if (parse_callgraph(arg, o))
			usage_error(st, o, "--call-graph", "expected fp, dwarf or dwarf,SIZE "
				    "(SIZE a multiple of 8, 8..65528)");
		break;
	case 'm':
		err = fr_parse__pages(arg, (size_t)sysconf(_SC_PAGESIZE), 1u << 19, &o->data_pages);
		if (err == -EDOM || err == -EINVAL)   /* 3, 100K: up to a power of two pages */
			err = fr_parse__pages_up(arg, (size_t)sysconf(_SC_PAGESIZE), 1u << 19,
						 &o->data_pages);
		if (!err && o->data_pages && fr_parse__pages(arg, (size_t)sysconf(_SC_PAGESIZE),
							     1u << 19, &(size_t){ 0 }))
			o->pages_rounded = arg;
		if (err)
			usage_error(st, o, "-m", "expected a page count or a size like 4M (at most 2G)");
		break;
	case OPT_WINDOW_SIZE:
		if (fr_parse__pages(arg, (size_t)sysconf(_SC_PAGESIZE), 1u << 19, &o->data_pages))
			usage_error(st, o, "--window-size", "expected a power-of-two size like 4M (at most 2G)");
		break;
	case OPT_WINDOW_TIME:
		if (fr_parse__duration(arg, &o->window_ns) || !o->window_ns)
			usage_error(st, o, "--window-time", "expected a duration like 10s or 500ms (> 0, at most 7 days)");
		break;
	case OPT_TRIGGER: o->trigger = arg; break;
	case OPT_TRIGGER_LATENCY: {
		struct record_args *ra = st->input;

		if (parse_latency(arg, ra))
			usage_error(st, o, "--trigger-latency", "expected BEGIN,END,DURATION or "
				    "syscall:NAME,DURATION (tracepoints, a duration like 50ms)");
		break;
	}
	case OPT_TRIGGER_FILTER: o->trigger_filter = arg; break;
	case OPT_TRIGGER_AFTER:
		if (fr_parse__duration(arg, &o->trigger_after_ns))
			usage_error(st, o, "--trigger-after", "expected a duration like 5s (at most 7 days)");
		break;
	case OPT_MAX_SNAPSHOTS:
		if (fr_parse__rate(arg, &o->rate_n, &o->rate_ns))
			usage_error(st, o, "--max-snapshots", "expected N/PERIOD like 3/1m (N 1..1000000, PERIOD > 0)");
		break;
	case OPT_MAX_FILES:
		if (fr_parse__u64(arg, 1, 1000000, &o->max_files))
			usage_error(st, o, "--max-files", "expected a count 1..1000000");
		break;
	case OPT_READER_CPUS:
		free(o->reader_cpus);
		o->reader_cpus = NULL;
		o->readers_unpinned = !strcmp(arg, "any");
		o->readers_own = !strcmp(arg, "own");
		if (o->readers_unpinned || o->readers_own)
			break;
		err = fr_cpus__parse(arg, &o->reader_cpus);
		if (err < 0 || strchr(arg, '\n'))
			usage_error(st, o, "--reader-cpus",
				    "expected a CPU list like 3 or 0,2-3, own or any");
		else
			o->nr_reader_cpus = (size_t)err;
		break;
	case 'o': o->outdir = arg; break;
	case OPT_NAME: o->name = arg; break;
	case OPT_RUN_DIR: o->run_dir = arg; break;
	case OPT_NO_FINAL: o->no_final = true; break;
	case 'z': {   /* zstd's levels, and its fast ones -1..-7 */
		bool fast = arg[0] == '-';

		if (fr_parse__u64(arg + fast, 1, fast ? 7 : 19, &v))
			usage_error(st, o, "-z", "expected a zstd level -7..-1 or 1..19");
		else
			o->level = fast ? -(int)v : (int)v;
		break;
	}
	case 'q': fr_quiet = o->quiet = true; break;
	case OPT_FILTER:
		if (!o->nr_events)
			usage_error(st, o, "--filter", "needs a preceding -e TRACEPOINT");
		else if (o->filters[o->nr_events - 1])
			usage_error(st, o, "--filter", "one filter per event");
		else
			o->filters[o->nr_events - 1] = arg;
		break;
	case 'G': o->cgroup = arg; break;
	case OPT_INCLUDE_SELF: o->include_self = true; break;
	case OPT_OFF_CPU: o->off_cpu = true; break;
	case OPT_OFF_CPU_THRESH:
		if (parse_thresh(arg, o))
			usage_error(st, o, "--off-cpu-thresh", "expected DURATION[,RATE] like 10ms or "
				    "10ms,200 (DURATION from 1us to 4s; RATE from 1 to 1000000 stacks a "
				    "second per CPU)");
		break;
	case OPT_EXEC_ON_SNAPSHOT: o->exec_on_snapshot = arg; break;
	case OPT_PUSH: push->url = arg; break;
	case OPT_PUSH_HEADER:
	case OPT_PUSH_HEADER_FILE:
	case OPT_PUSH_GZIP:
	case OPT_PUSH_TIMEOUT:
		if (cmd_push__option(push, key == OPT_PUSH_HEADER ? FR_PUSH_OPT_HEADER
					   : key == OPT_PUSH_HEADER_FILE ? FR_PUSH_OPT_HEADER_FILE
					   : key == OPT_PUSH_GZIP ? FR_PUSH_OPT_GZIP : FR_PUSH_OPT_TIMEOUT,
				     arg))
			o->usage_err = 1;
		break;
	case OPT_PUSH_SPOOL:
		if (fr_parse__u64(arg, 1, 100000, &v))
			usage_error(st, o, "--push-spool", "expected a number of files from 1 to 100000");
		else
			push->spool = (unsigned)v;
		break;
	case OPT_SWITCH_OUTPUT:
		if (parse_switch(arg, o))
			usage_error(st, o, "--switch-output", "expected a size like 64M (unit B, K, M "
				    "or G; at least 4K), a time like 10s (unit ms, s, m or h; at least "
				    "100ms) or signal");
		break;
	case OPT_KEEP:
		if (parse_keep(arg, o))
			usage_error(st, o, "--keep", "expected DURATION[,SIZE] like 60s or 60s,256M "
				    "(DURATION > 0, at most 7 days; SIZE at least 1M)");
		break;
	case ARGP_KEY_ARG:
		/* the command and its own options: stop parsing ours */
		o->cmd = st->argv + st->next - 1;
		st->next = st->argc;
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp record_argp = {
	record_options, record_parse, "[-- COMMAND [ARGS...]]",
	"Record until SIGINT/SIGTERM or the command's exit: system-wide into per-CPU "
	"overwrite rings, written as a snapshot on SIGUSR2 or `flightrec snapshot`; a command "
	"or -p PID streamed whole into one file (as perf does) unless --backward. Without -e: "
	"cycles (cpu-clock where there is no PMU) at 4000 Hz. Unprivileged, an event the "
	"kernel refuses is recorded user space only.\v"
	"Examples:\n"
	"  flightrec record -e syscalls:sys_enter_read --backward\n"
	"  flightrec record -F 999 -g -- ./server --port 8080\n"
	"  flightrec record -e cpu-clock:u --backward -- ./server --port 8080\n"
	"  flightrec record -e sched:sched_switch -p 1234 -m 4M -o /var/tmp/fr\n"
	"  flightrec record --forward -a -F 999 -g --switch-output 64M --max-files 10\n\n"
	"Exit codes: 0 ok; 1 a snapshot failed (said on stderr); 2 runtime error;\n"
	"3 denied or unsupported by the kernel (permission, no hardware PMU); 64 usage.",
	NULL, NULL, NULL
};

static char *join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (int i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static int check_outdir(const char *dir, char *abs)
{
	struct stat sb;

	if (stat(dir, &sb)) {
		fr_err(dir, "output directory: %s", strerror(errno));
		return FR_EXIT_ERROR;
	}
	if (!S_ISDIR(sb.st_mode)) {
		fr_err(dir, "output directory: not a directory");
		return FR_EXIT_ERROR;
	}
	if (access(dir, W_OK | X_OK) || !realpath(dir, abs)) {
		fr_err(dir, "output directory: %s", strerror(errno));
		return FR_EXIT_ERROR;
	}
	return FR_EXIT_OK;
}

/* -F above /proc/sys/kernel/perf_event_max_sample_rate: the kernel would
 * refuse it (EINVAL) at open; say the maximum instead. */
static int check_max_rate(uint64_t freq)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	unsigned long long max = 0;
	int n = f ? fscanf(f, "%llu", &max) : 0;

	if (f)
		fclose(f);
	if (n != 1 || !max || freq <= max)
		return 0;
	fr_err("-F", "%llu Hz is above the kernel's maximum, %llu Hz "
	       "(/proc/sys/kernel/perf_event_max_sample_rate)", (unsigned long long)freq, max);
	return -ERANGE;
}

/* Every -p target must exist now: one line, before anything is opened. */
static int check_pids(const char *arg)
{
	int *pids = NULL;
	size_t nr = 0;
	int ret = FR_EXIT_OK;
	char what[32];

	if (fr_parse__pids(arg, &pids, &nr)) {
		fr_err("-p", "expected PID[,PID...], positive integers");
		return FR_EXIT_USAGE;
	}
	for (size_t i = 0; i < nr && !ret; i++) {
		if (kill(pids[i], 0) && errno == ESRCH) {
			snprintf(what, sizeof(what), "%d", pids[i]);
			fr_err(what, "no such process");
			ret = FR_EXIT_ERROR;
		}
	}
	free(pids);
	return ret;
}

/* The command must be found (PATH, as execvp searches it) and executable
 * before anything is said or opened. */
static int check_command(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	int err = ENOENT;

	if (strchr(cmd, '/')) {
		err = access(cmd, X_OK) ? errno : 0;
	} else {
		if (!path || !*path)
			path = "/usr/local/bin:/usr/bin:/bin";
		for (const char *p = path; *p && err; p += strcspn(p, ":") + (p[strcspn(p, ":")] == ':')) {
			size_t n = strcspn(p, ":");
			struct stat sb;

			if ((size_t)snprintf(buf, sizeof(buf), "%.*s%s%s", (int)n, p, n ? "/" : "",
					     cmd) >= sizeof(buf))
				continue;
			if (stat(buf, &sb) || !S_ISREG(sb.st_mode))
				continue;
			err = access(buf, X_OK) ? errno : 0;
		}
	}
	if (!err)
		return FR_EXIT_OK;
	fr_err(cmd, "cannot run: %s", strerror(err));
	return FR_EXIT_ERROR;
}

static int validate(struct fr_record_opts *o, char *outdir)
{
	int ret;

	if (o->usage_err)
		return FR_EXIT_USAGE;
	if (o->switch_output && o->mode_given && !o->forward) {
		fr_err("--switch-output", "switches the files of --forward: not with --backward");
		return FR_EXIT_USAGE;
	}
	if (o->switch_output && !o->mode_given) {
		o->forward = true;
		o->mode_given = true;
	}
	if (o->forward && o->window_ns) {
		fr_err("--window-time", "drops a snapshot's older records: --forward streams every "
		       "record into its file as it is read, nothing is left to drop (--switch-output "
		       "TIME bounds a file's span)");
		return FR_EXIT_USAGE;
	}
	if (o->keep_ns && o->mode_given) {
		fr_err("--keep", "is a mode of its own: not with --forward, --backward or --switch-output");
		return FR_EXIT_USAGE;
	}
	if (o->off_cpu && o->nr_events > FR_RECORD_MAX_EVENTS - 3) {
		fr_err("--off-cpu", "adds sched:sched_switch and sched:sched_waking: at most 61 -e events");
		return FR_EXIT_USAGE;
	}
	if ((o->reader_cpus || o->readers_unpinned || o->readers_own) && !o->forward &&
	    !o->keep_ns) {
		fr_err("--reader-cpus", "places the reader threads of --forward and --keep only");
		return FR_EXIT_USAGE;
	}
	if (o->trigger_filter && !o->trigger) {
		fr_err("--trigger-filter", "needs --trigger EVENT");
		return FR_EXIT_USAGE;
	}
	if (o->trigger_after_ns && !o->trigger && !o->lat_begin) {
		fr_err("--trigger-after", "needs --trigger EVENT or --trigger-latency");
		return FR_EXIT_USAGE;
	}
	if (o->trigger && o->lat_begin) {
		fr_err("--trigger-latency", "one trigger event or pair: not with --trigger");
		return FR_EXIT_USAGE;
	}
	if ((o->cmd && o->pids) || (o->cmd && o->system_wide) || (o->pids && o->system_wide)) {
		fr_err("record", "give one target: -a, -p PID or -- COMMAND");
		return FR_EXIT_USAGE;
	}
	if (o->freq && o->period) {
		fr_err("record", "-F and -c exclude each other");
		return FR_EXIT_USAGE;
	}
	if (o->off_cpu_thresh_ns && (o->cmd || o->pids || o->cgroup)) {
		fr_err("--off-cpu-thresh", "the stacks of waits are recorded system-wide only (-a); "
		       "per command, -p or -G, --off-cpu records every switch with its stack");
		return FR_EXIT_USAGE;
	}
	if (o->off_cpu_thresh_ns && o->off_cpu) {
		fr_err("--off-cpu-thresh", "records the switches from BPF, --off-cpu from "
		       "sched:sched_switch with every stack: one or the other");
		return FR_EXIT_USAGE;
	}
	if (o->off_cpu_thresh_ns && o->nr_events > FR_RECORD_MAX_EVENTS - 1) {
		fr_err("--off-cpu-thresh", "adds the offcpu event: at most 63 -e events");
		return FR_EXIT_USAGE;
	}
	if (o->cgroup && (o->cmd || o->pids)) {
		fr_err("-G", "cgroup targeting is system-wide: not with -p or a command");
		return FR_EXIT_USAGE;
	}
	if (!o->mode_given && !o->keep_ns && (o->cmd || o->pids) &&
	    !(o->trigger || o->lat_begin || o->window_ns || o->rate_n || o->max_files))
		o->forward = true;   /* a command or pids: the whole run, as perf keeps it */
	if (o->freq && check_max_rate(o->freq))
		return FR_EXIT_USAGE;
	if (!o->name && !o->cmd && !o->pids)
		o->name = "default";   /* a command's or pids' recorder is named in run.c */
	if (o->name && !fr_control__valid_name(o->name)) {
		fr_err(o->name, "bad recorder name: use 1-64 of [A-Za-z0-9_.-]");
		return FR_EXIT_USAGE;
	}
	if (o->pids && (ret = check_pids(o->pids)))
		return ret;
	if (o->cmd && (ret = check_command(o->cmd[0])))
		return ret;
	if (o->pages_rounded)
		fr_info("-m %s: rounded up to %zu pages (%zu KiB), a power of two", o->pages_rounded,
			o->data_pages, o->data_pages * (size_t)sysconf(_SC_PAGESIZE) / 1024);
	return check_outdir(o->outdir, outdir);
}

/* record --forward on a terminal: one line, rewritten every second. */
static void show_progress(uint64_t bytes, uint64_t per_sec, bool done)
{
	if (done) {
		fputc('\n', stderr);
		return;
	}
	fprintf(stderr, "\rflightrec: forward: %.1f MiB written, %.1f MiB/s   ",
		(double)bytes / 1048576.0, (double)per_sec / 1048576.0);
}

int cmd_record(int argc, char **argv)
{
	struct record_args ra = { .o = { .outdir = ".", .level = 1 },
				  .push = { .timeout_s = 10, .spool = 100 } };
	struct fr_record_opts *op = &ra.o;
	char *cmdline = join_args(argc, argv), outdir[PATH_MAX];
	int ret = fr_parse_args(&record_argp, argc, argv, "flightrec record", &ra);

	if (ret) {
		ret = ret < 0 ? FR_EXIT_OK : ret;
		goto out;
	}
	ret = validate(op, outdir);
	if (ret)
		goto out;
	op->outdir = outdir;
	op->cmdline = cmdline;
	if (!ra.push.url && (ra.push.nr_headers || ra.push.header_file || ra.push.gzip)) {
		fr_err("--push-header", "the --push-* options need --push URL");
		ret = FR_EXIT_USAGE;
		goto out;
	}
	/* forked now, before anything is recorded: small, and none of the
	 * recorder's descriptors or threads */
	if (ra.push.url && (ret = cmd_push__spawn(&ra.push, outdir, &op->push_fd, &op->push_pid)))
		goto out;
	if (op->forward && !fr_quiet && isatty(STDERR_FILENO))
		op->progress = show_progress;
	/* A recorder runs for days: buffers of 256 KiB and more (the 1 MiB
	 * chunk buffers each snapshot's writers take) always come from mmap and
	 * go back to the system when freed. glibc's default threshold rises to
	 * the largest block freed, after which such buffers land in the heap
	 * between long-lived allocations and RSS steps up (the 30-minute soak:
	 * +2 MiB at minute 12, +0.5 MiB at 19). */
	mallopt(M_MMAP_THRESHOLD, 256 << 10);
	ret = fr_record__run(op);
out:
	free(op->reader_cpus);
	free(cmdline);
	return ret;
}
