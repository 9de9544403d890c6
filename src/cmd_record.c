/* src/cmd_record.c: `flightrec record`: options, the target (system, pids, a
 * command), and the loop that waits for triggers (SIGUSR2, the control socket,
 * the command's exit, SIGINT/SIGTERM) and writes snapshots.
 */
#include "config.h"

#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ring/evlist.h"
#include "src/record/control.h"
#include "src/cli.h"
#include "src/util.h"
#include "src/record/loop.h"
#include "src/record/session.h"

#define MAX_EVENTS 64
#define SB_PAGES 256                     /* 1 MiB sideband ring per CPU: a COMM storm fits */
#define SB_CAP (64u << 20)               /* sideband bytes kept per CPU */

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
};

#define BACKWARD_PAGES 128   /* 512 KiB per CPU: what perf uses, snapshots in a few ms */
#define FORWARD_PAGES 1024   /* 4 MiB per CPU: no loss at full speed on a read() loop */
#define FLUSH_MS 1000   /* forward mode: a killed recorder loses at most this much */

enum callgraph { CG_NONE, CG_FP, CG_DWARF };

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
#define FR_STACK_DEFAULT 8192u

struct fr_opts {
	const char *events[MAX_EVENTS];
	int nr_events;
	bool forward;
	bool system_wide;
	const char *pids;
	uint64_t freq, period;
	enum callgraph callgraph;
	uint32_t stack_size;     /* --call-graph dwarf,SIZE */
	size_t data_pages;
	const char *outdir;
	const char *name;
	const char *run_dir;
	bool no_final;
	int level;
	uint64_t window_ns;
	const char *trigger, *trigger_filter;
	uint64_t trigger_after_ns;
	uint64_t rate_n, rate_ns;
	uint64_t max_files;
	char **cmd;
	int usage_err;
};

static const struct argp_option record_options[] = {
	{ "event", 'e', "EVENT", 0, "event to record (repeatable, or comma separated): "
	  "subsys:tracepoint, cpu-clock, task-clock, page-faults, context-switches, "
	  "cpu-migrations, cycles, instructions, ...", 0 },
	{ "backward", OPT_BACKWARD, NULL, 0, "overwrite rings, written out on a trigger (default)", 0 },
	{ "forward", OPT_FORWARD, NULL, 0, "stream every record into one file (per-CPU reader "
	  "threads), instead of keeping a window", 0 },
	{ "all-cpus", 'a', NULL, 0, "system-wide (the default without -p or a command)", 0 },
	{ "pid", 'p', "PID[,PID]", 0, "record existing processes (all threads, and children)", 0 },
	{ "freq", 'F', "HZ", 0, "sampling frequency of software/hardware events (default 4000)", 0 },
	{ "count", 'c', "PERIOD", 0, "sample every PERIOD events", 0 },
	{ NULL, 'g', NULL, 0, "record frame-pointer callchains (--call-graph fp)", 0 },
	{ "call-graph", OPT_CALL_GRAPH, "fp|dwarf[,SIZE]", 0, "callchains: frame pointers, or "
	  "user registers and SIZE bytes of user stack (default 8192, at most 65528) unwound "
	  "by report with libunwind", 0 },
	{ "mmap-pages", 'm', "PAGES|SIZE", 0, "per-CPU ring: pages (power of two) or a size "
	  "like 4M (default 128 pages backward, 1024 forward)", 0 },
	{ "window-size", OPT_WINDOW_SIZE, "SIZE", 0, "the same as -m: the per-CPU window in bytes", 0 },
	{ "window-time", OPT_WINDOW_TIME, "DURATION", 0, "at a snapshot, drop records older than "
	  "DURATION (e.g. 10s, 500ms); warns when the ring holds less", 0 },
	{ "trigger", OPT_TRIGGER, "EVENT", 0, "snapshot when EVENT (a tracepoint or software event) "
	  "occurs; user space wakes only then", 0 },
	{ "trigger-filter", OPT_TRIGGER_FILTER, "FILTER", 0, "tracefs filter for --trigger, e.g. "
	  "'sig == 10'", 0 },
	{ "trigger-after", OPT_TRIGGER_AFTER, "DURATION", 0, "keep recording DURATION after a "
	  "--trigger event before the snapshot (default 0)", 0 },
	{ "max-snapshots", OPT_MAX_SNAPSHOTS, "N/PERIOD", 0, "at most N snapshots per PERIOD "
	  "(e.g. 3/1m); further triggers are refused, and triggers during a pending snapshot "
	  "join it", 0 },
	{ "max-files", OPT_MAX_FILES, "N", 0, "keep only the newest N files this recorder wrote", 0 },
	{ "output", 'o', "DIR", 0, "directory for snapshot files (default .)", 0 },
	{ "name", OPT_NAME, "NAME", 0, "recorder name, for several recorders (default 'default')", 0 },
	{ "run-dir", OPT_RUN_DIR, "DIR", 0, "where control sockets live (default /run/flightrec, "
	  "or $FLIGHTREC_RUN_DIR)", 0 },
	{ "no-final-snapshot", OPT_NO_FINAL, NULL, 0, "do not write a snapshot when stopped by "
	  "SIGINT/SIGTERM (a recorded command's exit always writes one)", 0 },
	{ "compression-level", 'z', "N", 0, "zstd level 1..19 (default 1)", 0 },
	{ "quiet", 'q', NULL, 0, "no status lines", 0 },
	{ 0 }
};

static void usage_error(struct argp_state *st, struct fr_opts *o, const char *what,
			const char *why)
{
	fr_err(what, "%s", why);
	o->usage_err = 1;
	(void)st;
}

static void add_events(struct argp_state *st, struct fr_opts *o, char *arg)
{
	char *save = NULL;

	for (char *tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nr_events == MAX_EVENTS) {
			usage_error(st, o, "-e", "too many events (at most 64)");
			return;
		}
		o->events[o->nr_events++] = tok;
	}
}

static int parse_callgraph(const char *arg, struct fr_opts *o)
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

static error_t record_parse(int key, char *arg, struct argp_state *st)
{
	struct fr_opts *o = st->input;
	uint64_t v;
	int err;

	switch (key) {
	case 'e': add_events(st, o, arg); break;
	case OPT_BACKWARD: o->forward = false; break;
	case OPT_FORWARD: o->forward = true; break;
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
		if (err == -EDOM)
			usage_error(st, o, "-m", "the ring must be a power of two pages (1, 2, 4, ... or 4K, 8K, ... 2G)");
		else if (err)
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
	case 'o': o->outdir = arg; break;
	case OPT_NAME: o->name = arg; break;
	case OPT_RUN_DIR: o->run_dir = arg; break;
	case OPT_NO_FINAL: o->no_final = true; break;
	case 'z':
		if (fr_parse__u64(arg, 1, 19, &v))
			usage_error(st, o, "-z", "expected a zstd level 1..19");
		else
			o->level = (int)v;
		break;
	case 'q': fr_quiet = true; break;
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
	"Record into per-CPU overwrite rings until SIGINT/SIGTERM or the command's exit; "
	"write a snapshot on SIGUSR2 or `flightrec snapshot`.\v"
	"Examples:\n"
	"  flightrec record -e syscalls:sys_enter_read --backward\n"
	"  flightrec record -F 999 -g --backward -- ./server --port 8080\n"
	"  flightrec record -e sched:sched_switch -p 1234 -m 4M -o /var/tmp/fr\n\n"
	"Exit codes: 0 ok; 1 a snapshot failed (said on stderr); 2 runtime error;\n"
	"3 denied or unsupported by the kernel (permission, no hardware PMU); 64 usage.",
	NULL, NULL, NULL
};

/* Resolve -e names and apply -F/-c/-g. Returns an exit code. */
static int build_evlist(struct fr_opts *o, struct fr_evlist *el)
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
			fr_err(o->events[i], "malformed event name");
			return FR_EXIT_USAGE;
		}
		if (err == -ENODEV) {
			fr_err(o->events[i], "tracefs is neither mounted nor mountable at /sys/kernel/tracing");
			return FR_EXIT_DENIED;
		}
		if (err) {
			fr_err(o->events[i], "%s", strerror(-err));
			return FR_EXIT_ERROR;
		}
		if (ev->kind != FR_EVENT_TRACEPOINT && o->period) {
			ev->attr.freq = 0;
			ev->attr.sample_period = o->period;
		} else if (ev->kind != FR_EVENT_TRACEPOINT && o->freq) {
			ev->attr.sample_freq = o->freq;
		} else if (ev->kind == FR_EVENT_TRACEPOINT && o->period) {
			ev->attr.sample_period = o->period;
		}
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
		if (fr_evlist__add(el, ev))
			return FR_EXIT_ERROR;
	}
	return FR_EXIT_OK;
}

static int report_open_error(const struct fr_evlist *el, const struct fr_open_error *oe)
{
	const char *what = oe->event >= 0 ? fr_evlist__event(el, (size_t)oe->event)->name
					  : "sideband";
	int err = -oe->err;

	if (err == EOPNOTSUPP && oe->event >= 0 &&
	    fr_evlist__event(el, (size_t)oe->event)->kind == FR_EVENT_HARDWARE) {
		fr_err(what, "not supported: no hardware PMU on this machine (use a software event "
		       "such as cpu-clock, or a tracepoint)");
		return FR_EXIT_DENIED;
	}
	if (err == EACCES || err == EPERM) {
		fr_err(what, "%s on CPU %d: %s (needs root or CAP_PERFMON, or a lower "
		       "/proc/sys/kernel/perf_event_paranoid)", oe->op, oe->cpu, strerror(err));
		return FR_EXIT_DENIED;
	}
	if (err == ESRCH) {
		fr_err(what, "no such process");
		return FR_EXIT_ERROR;
	}
	if (err == ENOMEM && !strcmp(oe->op, "mmap")) {
		fr_err(what, "mmap of the ring on CPU %d: %s (ring too large for "
		       "/proc/sys/kernel/perf_event_mlock_kb or RLIMIT_MEMLOCK?)", oe->cpu,
		       strerror(err));
		return FR_EXIT_ERROR;
	}
	fr_err(what, "%s on CPU %d: %s", oe->op, oe->cpu, strerror(err));
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV ? FR_EXIT_DENIED : FR_EXIT_ERROR;
}

struct child {
	pid_t pid;
	int go_fd;      /* write end: releases the child */
	int err_fd;     /* read end: errno of a failed exec, EOF on success */
};

/* Fork the command, stopped until release_child(). */
static int spawn_child(char **cmd, const sigset_t *old, struct child *c)
{
	int go[2], ep[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(ep, O_CLOEXEC))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0) {
		char b;
		int e;

		sigprocmask(SIG_SETMASK, old, NULL);
		close(go[1]);
		close(ep[0]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	c->go_fd = go[1];
	c->err_fd = ep[0];
	return 0;
}

static int release_child(struct child *c)
{
	int e = 0;
	ssize_t n;

	if (write(c->go_fd, "x", 1) != 1)
		return -errno;
	close(c->go_fd);
	n = read(c->err_fd, &e, sizeof(e));
	close(c->err_fd);
	return n == (ssize_t)sizeof(e) ? -e : 0;
}

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

static int validate(struct fr_opts *o, char *outdir)
{
	if (o->usage_err)
		return FR_EXIT_USAGE;
	if (o->forward && (o->trigger || o->window_ns || o->rate_n || o->max_files)) {
		fr_err("--forward", "streams every record into one file: --trigger, --window-time, "
		       "--max-snapshots and --max-files apply to --backward only");
		return FR_EXIT_USAGE;
	}
	if ((o->trigger_filter || o->trigger_after_ns) && !o->trigger) {
		fr_err("--trigger-filter", "needs --trigger EVENT");
		return FR_EXIT_USAGE;
	}
	if (!o->nr_events) {
		fr_err("record", "no event given (-e EVENT), e.g. -e syscalls:sys_enter_read or -e cpu-clock");
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
	if (!fr_control__valid_name(o->name)) {
		fr_err(o->name, "bad recorder name: use 1-64 of [A-Za-z0-9_.-]");
		return FR_EXIT_USAGE;
	}
	return check_outdir(o->outdir, outdir);
}

/* The --trigger event: resolved like -e, sampled on every occurrence. */
static int add_trigger(struct fr_opts *o, struct fr_evlist *el)
{
	struct fr_event *ev;
	int err = fr_event__resolve(o->trigger, &ev);

	if (err) {
		fr_err(o->trigger, "--trigger: %s", err == -ENOENT ? "unknown event" :
		       err == -EINVAL ? "malformed event name" : strerror(-err));
		return err == -ENOENT || err == -EINVAL ? FR_EXIT_USAGE : FR_EXIT_ERROR;
	}
	ev->attr.freq = 0;
	ev->attr.sample_period = 1;
	if (fr_evlist__set_trigger(el, ev, o->trigger_filter))
		return FR_EXIT_ERROR;
	return FR_EXIT_OK;
}

static void final_snapshot(struct fr_session *s, bool ended, int *status)
{
	struct fr_trigger tr = { .source = ended ? "exit" : "stop" };
	char path[PATH_MAX];
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	tr.time = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (fr_record_snapshot_now(s, &tr, path, sizeof(path)))
		*status = FR_EXIT_PARTIAL;
}

static int finish_forward(struct fr_session *s, int status)
{
	struct fr_snapshot_stats st;
	int err = fr_session__forward_stop(s, &st);

	if (err) {
		fr_err("forward", "completing the file: %s", strerror(-err));
		return FR_EXIT_PARTIAL;
	}
	fr_info("forward: %llu samples, %llu sideband, %llu lost", (unsigned long long)st.samples,
		(unsigned long long)st.sideband, (unsigned long long)st.lost);
	return st.lost ? FR_EXIT_PARTIAL : status;
}

static void describe_target(struct fr_opts *o, char *desc, size_t len)
{
	if (o->cmd)
		snprintf(desc, len, "command %s", o->cmd[0]);
	else if (o->pids)
		snprintf(desc, len, "pid %s", o->pids);
	else
		snprintf(desc, len, "system-wide");
}

/* Start recording: control socket, enable (or the child's exec), forward
 * threads. Returns an exit code. */
static int start(struct fr_opts *o, struct fr_session *s, struct fr_control **ctl,
		 const struct fr_target *t, struct child *ch, const char *desc)
{
	struct fr_evlist *el = fr_session__evlist(s);
	char path[PATH_MAX];
	pid_t other = 0;
	int err = fr_control__listen(fr_control__run_dir(o->run_dir), o->name, ctl, &other);

	if (err == -EEXIST) {
		fr_err(o->name, "a recorder with this name is already running (pid %d); use --name",
		       (int)other);
		return FR_EXIT_ERROR;
	} else if (err) {
		fr_err(fr_control__run_dir(o->run_dir), "control socket: %s", strerror(-err));
		return FR_EXIT_ERROR;
	}
	if (o->forward && (err = fr_session__forward_start(s, path, sizeof(path)))) {
		fr_err("forward", "%s", strerror(-err));
		return FR_EXIT_ERROR;
	}
	if (t->kind != FR_TARGET_CHILD && (err = fr_evlist__enable(el))) {
		fr_err("record", "enable: %s", strerror(-err));
		return FR_EXIT_ERROR;
	}
	if (o->forward)
		fr_info("recording %d event(s), %s, %zu CPUs, %zu KiB forward ring per CPU, "
			"streaming into %s", o->nr_events, desc, fr_evlist__nr_cpus(el),
			o->data_pages * (size_t)sysconf(_SC_PAGESIZE) / 1024, path);
	else
		fr_info("recording %d event(s), %s, %zu CPUs, %zu KiB backward ring per CPU; "
			"snapshot: flightrec snapshot%s%s or kill -USR2 %d", o->nr_events, desc,
			fr_evlist__nr_cpus(el), o->data_pages * (size_t)sysconf(_SC_PAGESIZE) / 1024,
			strcmp(o->name, "default") ? " --name " : "",
			strcmp(o->name, "default") ? o->name : "", (int)getpid());
	if (o->cmd && (err = release_child(ch))) {
		fr_err(o->cmd[0], "cannot run: %s", strerror(-err));
		return FR_EXIT_ERROR;
	}
	return FR_EXIT_OK;
}

int cmd_record(int argc, char **argv)
{
	struct fr_opts o = { .outdir = ".", .name = "default", .level = 1 };
	struct fr_target t = { .kind = FR_TARGET_SYSTEM };
	struct fr_evlist_opts eo = { .sb_pages = SB_PAGES, .backward = true };
	struct fr_session_opts so = { .zstd_level = 1, .sb_cap = SB_CAP, .flush_ms = FLUSH_MS };
	struct fr_loop_opts lo = { .sfd = -1, .child = -1, .flush_ms = FLUSH_MS };
	struct child ch = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	struct fr_session *s = NULL;
	struct fr_control *ctl = NULL;
	struct fr_open_error oe;
	struct fr_evlist *el = NULL;
	int *pids = NULL, ret, err;
	size_t nr_pids = 0;
	sigset_t mask, old;
	char *cmdline = join_args(argc, argv), desc[512], outdir[PATH_MAX];
	bool ended = false;

	ret = fr_parse_args(&record_argp, argc, argv, "flightrec record", &o);
	if (ret) {
		ret = ret < 0 ? FR_EXIT_OK : ret;
		goto out;
	}
	ret = validate(&o, outdir);
	if (ret)
		goto out;
	if (o.pids && fr_parse__pids(o.pids, &pids, &nr_pids)) {
		fr_err("-p", "expected PID[,PID...], positive integers");
		ret = FR_EXIT_USAGE;
		goto out;
	}
	el = fr_evlist__new();
	ret = el ? build_evlist(&o, el) : FR_EXIT_ERROR;
	if (!ret && o.trigger)
		ret = add_trigger(&o, el);
	if (ret)
		goto out;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &old);
	lo.sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	describe_target(&o, desc, sizeof(desc));
	if (o.cmd) {
		err = spawn_child(o.cmd, &old, &ch);
		if (err) {
			fr_err(o.cmd[0], "fork: %s", strerror(-err));
			ret = FR_EXIT_ERROR;
			goto out;
		}
		t.kind = FR_TARGET_CHILD;
		t.pids = &ch.pid;
		t.nr_pids = 1;
	} else if (pids) {
		t.kind = FR_TARGET_PIDS;
		t.pids = pids;
		t.nr_pids = nr_pids;
	}
	if (!o.data_pages)
		o.data_pages = o.forward ? FORWARD_PAGES : BACKWARD_PAGES;
	eo.data_pages = o.data_pages;
	eo.backward = !o.forward;
	err = fr_evlist__open(el, &t, &eo, &oe);
	if (err) {
		ret = report_open_error(el, &oe);
		goto out;
	}
	so.outdir = outdir;
	so.name = o.name;
	so.target_desc = desc;
	so.cmdline = cmdline;
	so.zstd_level = o.level;
	so.forward = o.forward;
	so.window_ns = o.window_ns;
	err = fr_session__new(el, &so, &s);
	el = NULL;
	if (err) {
		fr_err("record", "%s", strerror(-err));
		ret = FR_EXIT_ERROR;
		goto out;
	}
	if (t.kind != FR_TARGET_CHILD)
		fr_session__synthesize(s, t.kind == FR_TARGET_PIDS ? pids : NULL, nr_pids);
	ret = start(&o, s, &ctl, &t, &ch, desc);
	if (ret)
		goto out;
	lo.child = ch.pid;
	lo.forward = o.forward;
	lo.rate_n = o.rate_n;
	lo.rate_ns = o.rate_ns;
	lo.max_files = (unsigned)o.max_files;
	lo.trigger_after_ns = o.trigger_after_ns;
	ret = fr_record_loop(s, ctl, &lo, &ended);
	if (ended)
		ch.pid = -1;   /* reaped by the loop */
	fr_evlist__disable(fr_session__evlist(s));
	if (o.forward)
		ret = finish_forward(s, ret);
	else if (ended || !o.no_final)
		final_snapshot(s, ended, &ret);
out:
	if (ch.pid > 0) {
		kill(ch.pid, SIGTERM);
		waitpid(ch.pid, NULL, 0);
	}
	fr_control__close(ctl);
	fr_session__delete(s);
	fr_evlist__delete(el);
	if (lo.sfd >= 0)
		close(lo.sfd);
	free(pids);
	free(cmdline);
	return ret;
}
