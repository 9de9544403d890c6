/* src/record/run.c: one recording from start to end: events resolved and
 * opened over the target (kernel refusals turned into one line each), the
 * session, the control socket, the command released, the loop, the end.
 */
#include "config.h"
#include "src/record/record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ring/evlist.h"
#include "src/util.h"
#include "src/record/budget.h"
#include "src/record/child.h"
#include "src/record/control.h"
#include "src/record/events.h"
#include "src/record/waits.h"
#include "src/record/hook.h"
#include "src/record/loop.h"
#include "src/record/session.h"

#define SB_PAGES FR_RECORD_SB_PAGES
#define SB_CAP (64u << 20)               /* sideband bytes kept per CPU */
#define FLUSH_MS 1000   /* forward mode: a killed recorder loses at most this much */

/* -G: the cgroup's directory under the cgroup2 mount (/sys/fs/cgroup, or
 * where /proc/self/mounts says cgroup2 is). Returns an exit code. */
static int open_cgroup(const char *name, int *fd)
{
	char root[PATH_MAX] = "", path[PATH_MAX * 2], line[PATH_MAX + 256], mnt[PATH_MAX], type[64];
	FILE *f = fopen("/proc/self/mounts", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %4095s %63s", mnt, type) == 2 && !strcmp(type, "cgroup2")) {
			snprintf(root, sizeof(root), "%s", mnt);
			break;
		}
	if (f)
		fclose(f);
	if (!root[0]) {
		fr_err("-G", "no cgroup v2 hierarchy is mounted (cgroup targeting needs cgroup2)");
		return FR_EXIT_DENIED;
	}
	while (*name == '/')
		name++;
	snprintf(path, sizeof(path), "%s/%s", root, name);
	*fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0) {
		fr_err(path, "-G: %s", errno == ENOENT ? "no such cgroup" : strerror(errno));
		return errno == ENOENT || errno == ENOTDIR ? FR_EXIT_USAGE : FR_EXIT_ERROR;
	}
	return FR_EXIT_OK;
}

static int report_open_error(const struct fr_evlist *el, const struct fr_open_error *oe)
{
	const char *what = oe->event >= 0 ? fr_evlist__event(el, (size_t)oe->event)->name
					  : "sideband";
	const char *op = oe->op ? oe->op : "open";
	int err = -oe->err;

	if (err == ESRCH) {
		fr_err(what, "no such process");
		return FR_EXIT_ERROR;
	}

	if (oe->event >= 0 && !strcmp(oe->op, "PERF_EVENT_IOC_SET_FILTER")) {
		fr_err(what, "--filter '%s' refused by the kernel: %s", fr_evlist__event(el,
		       (size_t)oe->event)->filter, strerror(err));
		return FR_EXIT_USAGE;
	}
	if (err == EOPNOTSUPP && oe->event >= 0 &&
	    fr_evlist__event(el, (size_t)oe->event)->kind == FR_EVENT_HARDWARE) {
		fr_err(what, "not supported: no hardware PMU on this machine (use a software event "
		       "such as cpu-clock, or a tracepoint)");
		return FR_EXIT_DENIED;
	}
	if (err == EACCES || err == EPERM) {
		fr_err(what, "%s on CPU %d: %s (needs root or CAP_PERFMON, or a lower "
		       "/proc/sys/kernel/perf_event_paranoid: it is %d; -a needs <= 0, kernel "
		       "samples <= 1, tracepoints -1)", op, oe->cpu, strerror(err), fr_record__paranoid());
		return FR_EXIT_DENIED;
	}
	if (err == ENOMEM && !strcmp(op, "mmap")) {
		fr_err(what, "mmap of the ring on CPU %d: %s (ring too large for "
		       "/proc/sys/kernel/perf_event_mlock_kb or RLIMIT_MEMLOCK?)", oe->cpu,
		       strerror(err));
		return FR_EXIT_ERROR;
	}
	fr_err(what, "%s on CPU %d: %s", op, oe->cpu, strerror(err));
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV ? FR_EXIT_DENIED : FR_EXIT_ERROR;
}

/* The kernel refused an event of one's own processes: worth opening again
 * user space only, as perf does, unless something asked for the kernel
 * (:k, a tracepoint) or the whole system is the target. */
static bool retry_user_only(const struct fr_evlist *el, const struct fr_target *t,
			    const struct fr_open_error *oe)
{
	const struct fr_event *trig = fr_evlist__trigger_event(el);

	if ((oe->err != -EACCES && oe->err != -EPERM) || t->kind == FR_TARGET_SYSTEM ||
	    !oe->op || strcmp(oe->op, "perf_event_open"))
		return false;
	if (trig && (trig->kind == FR_EVENT_TRACEPOINT || trig->mod_kernel))
		return false;
	for (size_t i = 0; i < fr_evlist__nr_events(el); i++) {
		const struct fr_event *ev = fr_evlist__event(el, i);

		if (ev->kind == FR_EVENT_TRACEPOINT || ev->mod_kernel)
			return false;
	}
	return true;
}

/* Unprivileged, the rings are locked memory the kernel allows up to
 * perf_event_mlock_kb per CPU plus RLIMIT_MEMLOCK: without -m, shrink the
 * default rings to fit, as perf does, rather than fail at mmap. */
static void fit_mlock(bool pages_given, size_t *data_pages, size_t *sb_pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), budget, data;
	unsigned long long kb = 516;
	struct rlimit rl;
	int *cpus = NULL, ncpu = fr_cpus__online(&cpus);
	FILE *f;

	free(cpus);
	if (geteuid() == 0 || pages_given || ncpu <= 0)
		return;
	f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "re");
	if (f) {
		if (fscanf(f, "%llu", &kb) != 1)
			kb = 516;
		fclose(f);
	}
	budget = (size_t)(kb * 1024 / page);
	if (!getrlimit(RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY)
		budget += (size_t)(rl.rlim_cur / page) / (size_t)ncpu;
	else if (!getrlimit(RLIMIT_MEMLOCK, &rl))
		return;
	*sb_pages = SB_PAGES / 4;
	/* per CPU: the sample ring, the sideband ring, a trigger ring, headers */
	for (data = *data_pages; data > 8 && data + *sb_pages + 16 > budget; data /= 2)
		;
	*data_pages = data;
}

/* The memory budget (budget.c): --keep's SIZE by default, a SIZE past half
 * a cgroup's limit cut to it, the JIT maps' share; said where a cgroup
 * sets it (the keep line says the window's SIZE anyway). */
static void plan_memory(struct fr_record_opts *o, struct fr_session_opts *so)
{
	const char *which = NULL;
	struct fr_budget b;

	fr_budget__read(&b, &which);
	so->jit_budget = b.jit;
	if (o->keep_ns && !o->keep_bytes) {
		o->keep_bytes = b.keep_default;
	} else if (o->keep_ns && b.keep_max && o->keep_bytes > b.keep_max) {
		fr_info("--keep: its SIZE, %llu MiB, is more than half the memory limit (%llu MiB, "
			"%s): the window holds at most %llu MiB", (unsigned long long)(o->keep_bytes >> 20),
			(unsigned long long)(b.total >> 20), which,
			(unsigned long long)(b.keep_max >> 20));
		o->keep_bytes = b.keep_max;
	}
	if (b.from_cgroup && o->keep_ns)
		fr_info("memory budget: %llu MiB (%s): the --keep window at most %llu MiB, JIT maps at "
			"most %llu MiB", (unsigned long long)(b.total >> 20), which,
			(unsigned long long)(o->keep_bytes >> 20), (unsigned long long)(b.jit >> 20));
	else if (b.from_cgroup)
		fr_info("memory budget: %llu MiB (%s): JIT maps at most %llu MiB",
			(unsigned long long)(b.total >> 20), which, (unsigned long long)(b.jit >> 20));
}

/* The worse of two exit codes (an error is not lowered to a partial file). */
static int worse(int a, int b)
{
	return a > b ? a : b;
}

/* The end of the recording, as the source ends it (forward: its file
 * completed; backward and --keep: a final snapshot unless --no-final asked
 * for none); the hooks run on the last file. */
static int finish(struct fr_session *s, bool ended, int status, struct fr_hooks *h,
		  const struct fr_record_opts *o)
{
	struct fr_trigger tr = { .source = ended ? "exit" : "stop" };
	char path[PATH_MAX];
	struct timespec ts;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	tr.time = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	r = fr_session__end(s, &tr, ended || !o->no_final, path, sizeof(path));
	if (r >= 0 && path[0] && h)
		fr_hooks__run(h, path);
	return r ? worse(status, FR_EXIT_PARTIAL) : status;
}

static void describe_target(struct fr_record_opts *o, char *desc, size_t len)
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
static int start(struct fr_record_opts *o, struct fr_session *s, struct fr_control **ctl,
		 const struct fr_target *t, struct fr_child *ch, char *path)
{
	struct fr_evlist *el = fr_session__evlist(s);
	struct fr_control_fail cf;
	int err;

	/* the socket says "recording": the forward readers need kallsyms
	 * first, so it is loaded before the socket appears; backward mode loads
	 * it in a thread while the loop drains (fr_session__start). The events
	 * are enabled before it appears too: a client that waits for the
	 * socket and then runs its workload is recorded from its first event
	 * (tests/e2e/errors.sh lost a 1 ms burst of reads to the gap) */
	fr_session__prepare(s);
	if (t->kind != FR_TARGET_CHILD && (err = fr_evlist__enable(el))) {
		fr_err("record", "enable: %s", strerror(-err));
		return FR_EXIT_ERROR;
	}
	err = fr_control__listen(fr_control__run_dir(o->run_dir), o->name, ctl, &cf);
	if (err == -EEXIST) {
		fr_err(o->name, "a recorder with this name is already running (pid %d); use --name",
		       (int)cf.other);
		return FR_EXIT_ERROR;
	} else if (err && cf.file[0]) {
		fr_err(cf.file, "%s", cf.why);
		return FR_EXIT_ERROR;
	} else if (err) {
		fr_err(fr_control__run_dir(o->run_dir), "control socket: %s", strerror(-err));
		return FR_EXIT_ERROR;
	}
	if (fr_session__start(s, path, PATH_MAX))
		return FR_EXIT_ERROR;   /* said by the source */
	if (o->cmd && (err = fr_child__release(ch))) {
		fr_err(o->cmd[0], "cannot run: %s", strerror(-err));
		return FR_EXIT_ERROR;
	}
	return FR_EXIT_OK;
}

/* Without --name, a command's recorder is cmd-BASENAME-PID (the command's
 * pid: it is forked first) and a -p one pid-PID (the first target), so they
 * run beside a system-wide 'default'; what a name may not hold becomes _. */
static const char *auto_name(const struct fr_record_opts *o, pid_t child, char *name, size_t len)
{
	const char *base = o->cmd ? strrchr(o->cmd[0], '/') : NULL;

	base = o->cmd ? (base ? base + 1 : o->cmd[0]) : NULL;
	if (base)
		snprintf(name, len, "cmd-%.40s-%d", base, (int)child);
	else
		snprintf(name, len, "pid-%.40s", o->pids);
	for (size_t n = 0; name[n]; n++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-",
			    name[n]))
			name[n] = '_';
	return name;
}

int fr_record__run(struct fr_record_opts *op)
{
	struct fr_record_opts o = *op;
	struct fr_target t = { .kind = FR_TARGET_SYSTEM };
	struct fr_evlist_opts eo = { .sb_pages = SB_PAGES, .backward = true };
	struct fr_session_opts so = { .zstd_level = 1, .sb_cap = SB_CAP, .flush_ms = FLUSH_MS };
	struct fr_loop_opts lo = { .sfd = -1, .child = -1 };
	struct fr_child ch = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	struct fr_hooks *hooks = NULL;
	char fwd_path[PATH_MAX] = "";
	struct fr_session *s = NULL;
	struct fr_control *ctl = NULL;
	struct fr_open_error oe;
	struct fr_evlist *el = NULL;
	struct fr_waits *waits = NULL;
	int *pids = NULL, ret, err;
	size_t nr_pids = 0;
	sigset_t mask, old;
	char desc[512], name[65];
	bool ended = false, masked = false, pages_given, named, per_task;

	/* a status line to a stderr pipe whose reader went away (a restarted
	 * logger, `| head`) is dropped, not fatal: EPIPE instead of SIGPIPE
	 * (the recorded command gets the default back, src/record/child.c) */
	signal(SIGPIPE, SIG_IGN);
	if (o.pids && fr_parse__pids(o.pids, &pids, &nr_pids)) {
		fr_err("-p", "expected PID[,PID...], positive integers");
		ret = FR_EXIT_USAGE;
		goto out;
	}
	if (!o.nr_events)
		fr_record__default_event(&o);
	fr_record__off_cpu_events(&o);
	ret = fr_record__build_evlist(&o, &el, false);
	if (ret)
		goto out;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &old);
	masked = true;
	lo.sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (lo.sfd < 0) {
		fr_err("record", "signalfd: %s", strerror(errno));
		ret = FR_EXIT_ERROR;
		goto out;
	}
	describe_target(&o, desc, sizeof(desc));
	if (o.cmd) {
		err = fr_child__spawn(o.cmd, &old, &ch);
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
	} else if (o.cgroup) {
		t.kind = FR_TARGET_CGROUP;
		t.cgroup_fd = -1;
		ret = open_cgroup(o.cgroup, &t.cgroup_fd);
		if (ret)
			goto out;
		snprintf(desc, sizeof(desc), "cgroup %s", o.cgroup);
	}
	if (!o.name)
		o.name = auto_name(&o, ch.pid, name, sizeof(name));
	if ((o.exec_on_snapshot || o.push_pid > 0) &&
	    !(hooks = fr_hooks__new(o.exec_on_snapshot, o.push_fd, o.push_pid))) {
		ret = FR_EXIT_ERROR;
		goto out;
	}
	so.source = o.forward ? fr_source__forward() : o.keep_ns ? fr_source__keep()
			      : fr_source__backward();
	pages_given = o.data_pages != 0;
	eo.data_pages = o.data_pages;   /* 0: the source's default */
	per_task = t.kind == FR_TARGET_CHILD || t.kind == FR_TARGET_PIDS;
	fr_source__rings(so.source, per_task, &eo);
	fit_mlock(pages_given, &eo.data_pages, &eo.sb_pages);
	o.data_pages = eo.data_pages;   /* the start line says it */
	named = fr_source__route(so.source, per_task) == FR_SB_NAMES_IN_SAMPLES &&
		!fr_record__add_name_tracepoints(el);
	err = fr_evlist__open(el, &t, &eo, &oe);
	if (err && named && oe.event <= -3) {
		/* a name tracepoint refused: the COMMs on the sideband ring */
		ret = fr_record__build_evlist(&o, &el, false);
		if (ret)
			goto out;
		err = fr_evlist__open(el, &t, &eo, &oe);
	}
	if (err && retry_user_only(el, &t, &oe)) {
		ret = fr_record__build_evlist(&o, &el, true);
		if (ret)
			goto out;
		eo.user_only = true;
		err = fr_evlist__open(el, &t, &eo, &oe);
		if (!err)
			fr_info("kernel samples not allowed (perf_event_paranoid=%d): recording user "
				"space only", fr_record__paranoid());
	}
	if (err) {
		ret = report_open_error(el, &oe);
		goto out;
	}
	if (o.off_cpu_thresh_ns) {
		so.offcpu_stack_rate = o.off_cpu_stack_rate ? o.off_cpu_stack_rate : FR_RECORD_STACK_RATE;
		err = fr_waits__open(el, o.off_cpu_thresh_ns, so.offcpu_stack_rate, (int)getpid(),
				     &waits);
		if (err) {
			fr_err("--off-cpu-thresh", "the BPF programs could not be loaded: %s (they need "
			       "CAP_BPF and CAP_PERFMON, a kernel with BTF; --off-cpu records the "
			       "switches without BPF)", strerror(-err));
			ret = err == -EPERM || err == -EACCES ? FR_EXIT_DENIED : FR_EXIT_ERROR;
			goto out;
		}
		so.offcpu_thresh_ns = o.off_cpu_thresh_ns;
	}
	so.outdir = o.outdir;
	so.name = o.name;
	so.target_desc = desc;
	plan_memory(&o, &so);
	so.hotplug = true;   /* a per-task target: a CPU new since the start said */
	so.cmdline = o.cmdline;
	so.zstd_level = o.level;
	so.window_ns = o.window_ns;
	so.reader_cpus = o.reader_cpus;
	so.nr_reader_cpus = o.nr_reader_cpus;
	so.readers_unpinned = o.readers_unpinned;
	so.readers_own = o.readers_own;
	so.max_files = (unsigned)o.max_files;
	so.switch_output = o.switch_output != NULL;
	so.switch_bytes = o.switch_bytes;
	so.switch_ns = o.switch_ns;
	so.keep_ns = o.keep_ns;
	so.keep_bytes = o.keep_bytes;
	so.nr_events = o.nr_events;
	so.ring_kib = o.data_pages * (size_t)sysconf(_SC_PAGESIZE) / 1024;
	so.switch_spec = o.switch_output;
	so.quiet = o.quiet;
	so.exclude_self = !o.include_self &&
			  (t.kind == FR_TARGET_SYSTEM || t.kind == FR_TARGET_CGROUP);
	if (t.kind == FR_TARGET_PIDS || t.kind == FR_TARGET_CHILD) {
		so.target_pids = t.pids;
		so.nr_target_pids = t.nr_pids;
	}
	err = fr_session__new(el, &so, &s);
	el = NULL;
	if (err) {
		fr_err("record", "%s", strerror(-err));
		ret = FR_EXIT_ERROR;
		goto out;
	}
	if (t.kind != FR_TARGET_CHILD)
		fr_session__synthesize(s, t.kind == FR_TARGET_PIDS ? pids : NULL, nr_pids);
	ret = start(&o, s, &ctl, &t, &ch, fwd_path);
	if (ret)
		goto out;
	lo.child = ch.pid;
	if (t.kind == FR_TARGET_PIDS) {
		lo.pids = pids;
		lo.nr_pids = nr_pids;
	}
	lo.rate_n = o.rate_n;
	lo.rate_ns = o.rate_ns;
	lo.trigger_after_ns = o.trigger_after_ns;
	lo.latency_ns = o.lat_ns;
	lo.hooks = hooks;
	lo.progress = o.progress;
	ret = fr_record_loop(s, ctl, &lo, &ended);
	if (ended)
		ch.pid = -1;   /* reaped by the loop */
	fr_session__stop(s);
	ret = finish(s, ended, ret, hooks, &o);
	fr_hooks__wait(hooks, 10000);
out:
	if (ch.pid > 0) {
		kill(ch.pid, SIGTERM);
		waitpid(ch.pid, NULL, 0);
	}
	fr_control__close(ctl);
	fr_waits__delete(waits);   /* before the events it writes into close */
	fr_session__delete(s);
	fr_evlist__delete(el);
	if (lo.sfd >= 0)
		close(lo.sfd);
	if (masked) {
		/* a second SIGINT (timeout(1) signals the child and its group)
		 * must not kill us on the way out */
		struct timespec zero = { 0, 0 };

		while (sigtimedwait(&mask, NULL, &zero) > 0)
			;
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	free(pids);
	fr_hooks__delete(hooks);
	if (t.kind == FR_TARGET_CGROUP && t.cgroup_fd >= 0)
		close(t.cgroup_fd);
	return ret;
}
