/* bench/attrcost.c: what each sample_type bit and option costs per event: one
 * tracepoint opened on this CPU into a backward ring, the workload run here.
 */

/*
 * Configurations (interleaved, rotated each round; one line "CONFIG NS" per
 * measurement on stdout), on syscalls:sys_enter_read or sys_enter_prctl:
 *   none              nothing enabled
 *   ftrace            ftrace's own ring (a tracefs instance, overwrite on),
 *                     the same tracepoint enabled
 *   bare              the perf tracepoint with sample_type 0
 *   A+B+...           bits: ip tid time cpu period raw callchain id identifier
 *                     streamid addr; options: clock (use_clockid MONOTONIC);
 *                     comm, all: a sideband dummy event (comm, comm_exec, mmap2,
 *                     task, TID|TIME) in its own backward ring; "all" sets its
 *                     sample_id_all, "alltime" too but with TIME alone (the
 *                     tracepoint is left out unless a bit, "clock" or "bare"
 *                     is given)
 *   fr                tid+time+raw+clock (flightrec's tracepoint default)
 *   perf              ip+tid+time+cpu+period+raw (perf record -a on a tracepoint)
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <tracefs.h>

#include "ring/event.h"
#include "ring/ring.h"

#define MAX_CONFIGS 64
#define EXIT_USAGE 64

static const char *prog = "attrcost";

enum workload { WL_READ, WL_PRCTL };

struct config {
	const char *name;
	bool none, ftrace, tracepoint, sideband, sb_all, sb_time_only, clock;
	unsigned long long sample_type;
};

struct bit_name {
	const char *name;
	unsigned long long bit;
};

static const struct bit_name bits[] = {
	{ "ip", PERF_SAMPLE_IP },
	{ "tid", PERF_SAMPLE_TID },
	{ "time", PERF_SAMPLE_TIME },
	{ "addr", PERF_SAMPLE_ADDR },
	{ "id", PERF_SAMPLE_ID },
	{ "streamid", PERF_SAMPLE_STREAM_ID },
	{ "cpu", PERF_SAMPLE_CPU },
	{ "period", PERF_SAMPLE_PERIOD },
	{ "raw", PERF_SAMPLE_RAW },
	{ "callchain", PERF_SAMPLE_CALLCHAIN },
	{ "identifier", PERF_SAMPLE_IDENTIFIER },
};

struct run_ctx {
	enum workload wl;
	const char *tp_sys, *tp_name;
	struct fr_event *tp;   /* resolved once: id and base attributes */
	size_t pages;
	int cpu;
	long ops;
	int devzero;
};

static void usage(void)
{
	fprintf(stderr, "usage: %s [-w read|prctl] [-n OPS] [-r ROUNDS] [-m PAGES] CONFIG...\n"
		"CONFIG: none | ftrace | fr | perf | bare | BIT[+BIT...] with BIT one of ip tid "
		"time cpu period raw callchain id identifier streamid addr clock comm all alltime\n",
		prog);
	exit(EXIT_USAGE);
}

static long parse_long(const char *what, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: %s: expected an integer %ld..%ld, got '%s'\n", prog, what, min,
			max, s);
		exit(EXIT_USAGE);
	}
	return v;
}

static int parse_token(struct config *c, const char *tok, size_t len)
{
	static const struct { const char *name, *expand; } presets[] = {
		{ "fr", "tid+time+raw+clock" },
		{ "perf", "ip+tid+time+cpu+period+raw" },
	};

	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		const char *p = presets[i].expand;

		if (strlen(presets[i].name) != len || strncmp(tok, presets[i].name, len))
			continue;
		while (*p) {
			size_t n = strcspn(p, "+");

			if (parse_token(c, p, n))
				return -1;
			p += n + (p[n] == '+');
		}
		return 0;
	}
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (strlen(bits[i].name) == len && !strncmp(tok, bits[i].name, len)) {
			c->sample_type |= bits[i].bit;
			c->tracepoint = true;
			return 0;
		}
	if (len == 4 && !strncmp(tok, "bare", 4))
		c->tracepoint = true;
	else if (len == 5 && !strncmp(tok, "clock", 5))
		c->tracepoint = c->clock = true;
	else if (len == 4 && !strncmp(tok, "comm", 4))
		c->sideband = true;
	else if (len == 3 && !strncmp(tok, "all", 3))
		c->sideband = c->sb_all = true;
	else if (len == 7 && !strncmp(tok, "alltime", 7))
		c->sideband = c->sb_all = c->sb_time_only = true;
	else
		return -1;
	return 0;
}

static void parse_config(const char *s, struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->name = s;
	if (!strcmp(s, "none")) {
		c->none = true;
		return;
	}
	if (!strcmp(s, "ftrace")) {
		c->ftrace = true;
		return;
	}
	while (*s) {
		size_t n = strcspn(s, "+");

		if (!n || parse_token(c, s, n)) {
			fprintf(stderr, "%s: unknown configuration '%s'\n", prog, c->name);
			usage();
		}
		s += n + (s[n] == '+');
	}
}

static long sys_perf_event_open(struct perf_event_attr *a, int cpu)
{
	return syscall(SYS_perf_event_open, a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* One event on this CPU into its own backward ring. */
static int open_ring(struct perf_event_attr *a, struct run_ctx *x, int *fd, struct fr_ring **r)
{
	long f = sys_perf_event_open(a, x->cpu);
	int err;

	if (f < 0)
		return -errno;
	err = fr_ring__mmap((int)f, x->pages, true, r);
	if (err) {
		close((int)f);
		return err;
	}
	*fd = (int)f;
	return 0;
}

static void sideband_attr(struct perf_event_attr *a, bool all, bool time_only)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->disabled = 1;
	a->sample_type = time_only ? PERF_SAMPLE_TIME : PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->sample_id_all = all;
	a->comm = a->comm_exec = a->mmap = a->mmap2 = a->task = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->write_backward = 1;
}

struct armed {
	int fds[2];
	struct fr_ring *rings[2];
	int n;
	struct tracefs_instance *inst;
};

static int arm_ftrace(const struct run_ctx *x, struct armed *a)
{
	char kb[32], name[64];

	snprintf(name, sizeof(name), "frbench_attr_%d", (int)getpid());
	a->inst = tracefs_instance_create(name);
	if (!a->inst)
		return errno ? -errno : -ENODEV;
	snprintf(kb, sizeof(kb), "%zu", x->pages * (size_t)sysconf(_SC_PAGESIZE) / 1024);
	if (tracefs_instance_file_write(a->inst, "buffer_size_kb", kb) < 0 ||
	    tracefs_option_enable(a->inst, TRACEFS_OPTION_OVERWRITE) ||
	    tracefs_event_enable(a->inst, x->tp_sys, x->tp_name) || tracefs_trace_on(a->inst))
		return -EIO;
	return 0;
}

static int arm(const struct config *c, struct run_ctx *x, struct armed *a)
{
	struct perf_event_attr attr;
	int err;

	memset(a, 0, sizeof(*a));
	if (c->ftrace)
		return arm_ftrace(x, a);
	if (c->tracepoint) {
		attr = x->tp->attr;
		attr.sample_type = c->sample_type;
		attr.use_clockid = c->clock;
		attr.clockid = c->clock ? CLOCK_MONOTONIC : 0;
		attr.write_backward = 1;
		err = open_ring(&attr, x, &a->fds[a->n], &a->rings[a->n]);
		if (err)
			return err;
		a->n++;
	}
	if (c->sideband) {
		sideband_attr(&attr, c->sb_all, c->sb_time_only);
		err = open_ring(&attr, x, &a->fds[a->n], &a->rings[a->n]);
		if (err)
			return err;
		a->n++;
	}
	for (int i = 0; i < a->n; i++)
		if (ioctl(a->fds[i], PERF_EVENT_IOC_ENABLE, 0))
			return -errno;
	return 0;
}

static void disarm(struct armed *a)
{
	for (int i = 0; i < a->n; i++) {
		ioctl(a->fds[i], PERF_EVENT_IOC_DISABLE, 0);
		fr_ring__delete(a->rings[i]);
		close(a->fds[i]);
	}
	a->n = 0;
	if (a->inst) {
		tracefs_event_disable(a->inst, NULL, NULL);
		tracefs_trace_off(a->inst);
		tracefs_instance_destroy(a->inst);
		tracefs_instance_free(a->inst);
		a->inst = NULL;
	}
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static double run_workload(const struct run_ctx *x)
{
	unsigned long long t0 = now_ns(), t1;
	char c, name[32];

	if (x->wl == WL_READ) {
		for (long i = 0; i < x->ops; i++)
			if (read(x->devzero, &c, 1) != 1)
				return -1;
	} else {
		for (long i = 0; i < x->ops; i++) {
			snprintf(name, sizeof(name), "a:%ld", i);
			if (prctl(PR_SET_NAME, name, 0, 0, 0))
				return -1;
		}
	}
	t1 = now_ns();
	return (double)(t1 - t0) / (double)x->ops;
}

static int measure(const struct config *c, struct run_ctx *x, double *ns)
{
	struct armed a;
	int err = arm(c, x, &a);

	if (!err) {
		*ns = run_workload(x);
		if (*ns < 0)
			err = -EIO;
	}
	disarm(&a);
	return err;
}

/* Pin to the CPU we were started on (taskset decides which). */
static int pin_here(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return -errno;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	return cpu;
}

int main(int argc, char **argv)
{
	static struct config cfg[MAX_CONFIGS];
	struct run_ctx x = { .wl = WL_READ, .pages = 1024, .ops = 500000 };
	char spec[128];
	long rounds = 7;
	int nc = 0, c, err;

	while ((c = getopt(argc, argv, "w:n:r:m:h")) != -1) {
		switch (c) {
		case 'w':
			if (!strcmp(optarg, "read"))
				x.wl = WL_READ;
			else if (!strcmp(optarg, "prctl"))
				x.wl = WL_PRCTL;
			else
				usage();
			break;
		case 'n': x.ops = parse_long("-n", optarg, 1, 1000000000); break;
		case 'r': rounds = parse_long("-r", optarg, 1, 10000); break;
		case 'm':
			x.pages = (size_t)parse_long("-m", optarg, 1, 1 << 19);
			if (x.pages & (x.pages - 1))
				usage();
			break;
		default: usage();
		}
	}
	for (; optind < argc && nc < MAX_CONFIGS; optind++)
		parse_config(argv[optind], &cfg[nc++]);
	if (!nc || optind < argc)
		usage();
	x.tp_sys = "syscalls";
	x.tp_name = x.wl == WL_READ ? "sys_enter_read" : "sys_enter_prctl";
	snprintf(spec, sizeof(spec), "%s:%s", x.tp_sys, x.tp_name);
	err = fr_event__resolve(spec, &x.tp);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", prog, spec, strerror(-err));
		return err == -EACCES || err == -EPERM ? 3 : 2;
	}
	x.cpu = pin_here();
	x.devzero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (x.cpu < 0 || x.devzero < 0) {
		fprintf(stderr, "%s: pinning or /dev/zero: %s\n", prog, strerror(errno));
		return 2;
	}
	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < nc; i++) {
			const struct config *k = &cfg[(i + r) % nc];
			double ns = 0;

			err = measure(k, &x, &ns);
			if (err) {
				fprintf(stderr, "%s: %s: %s\n", prog, k->name, strerror(-err));
				return err == -EACCES || err == -EPERM ? 3 : 2;
			}
			printf("%s %.2f\n", k->name, ns);
			fflush(stdout);
		}
	}
	fr_event__delete(x.tp);
	close(x.devzero);
	return 0;
}
