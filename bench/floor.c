/* bench/floor.c: the kernel-only floor: the events and attributes of `flightrec
 * record --backward` (made by the recorder's own code, src/record/events.c, and
 * opened by ring/), rings mapped, never read; --minimal: the minimal floor, one
 * backward ring per CPU and no sideband ring.
 */

/*
 * The forward sideband ring is emptied on each wakeup with a no-op callback:
 * left full, the kernel would drop COMM/MMAP records early and cheaply, and
 * the floor would cost less than the kernel's real work. Use --no-drain to see
 * that. Prints "ready" on stdout once enabled; runs until SIGINT/SIGTERM, then
 * says on stderr how many samples the kernel dropped (PERF_FORMAT_LOST).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "ring/evlist.h"
#include "src/record/events.h"
#include "src/util.h"

#define MAX_EVENTS 16
#define SB_PAGES FR_RECORD_SB_PAGES   /* the recorder's sideband ring per CPU */
#define EXIT_USAGE 64

static const char *prog = "floor";

struct floor_opts {
	const char *events[MAX_EVENTS];
	int nr_events;
	bool callchain;
	unsigned long long freq, period;
	size_t data_pages;
	size_t sb_pages;
	bool drain;
	bool minimal;
	bool comm_sideband;
};

static void usage(void)
{
	fprintf(stderr, "usage: %s -e EVENT [-e EVENT...] [-g] [-F HZ | -c PERIOD] "
		"[-m PAGES|SIZE] [-s PAGES|SIZE] [--no-drain] [--minimal] [--comm-sideband]\n"
		"Opens flightrec's backward events system-wide and never reads them:\n"
		"the COMMs in the sample ring, the name tracepoints in the sideband ring.\n"
		"--comm-sideband: the COMMs in the sideband ring instead (the layout\n"
		"before the name tracepoints; where they cannot be opened, the recorder's).\n"
		"--minimal: no sideband ring; the first event's backward ring also holds\n"
		"the COMM/MMAP2/TASK records, as perf record --overwrite asks of the kernel.\n"
		"-s: the sideband ring per CPU (default 1M, the recorder's).\n", prog);
	exit(EXIT_USAGE);
}

static unsigned long long parse_u64(const char *what, const char *s, unsigned long long min,
				    unsigned long long max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max) {
		fprintf(stderr, "%s: %s: expected an integer %llu..%llu, got '%s'\n", prog, what,
			min, max, s);
		exit(EXIT_USAGE);
	}
	return v;
}

/* PAGES (a power of two) or a size with a K/M/G suffix. */
static size_t parse_pages(const char *what, const char *s)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = strlen(s), pages;
	unsigned long long v, mul = 0;
	char num[32];

	if (len == 0 || len >= sizeof(num))
		usage();
	switch (s[len - 1]) {
	case 'K': case 'k': mul = 1ull << 10; break;
	case 'M': case 'm': mul = 1ull << 20; break;
	case 'G': case 'g': mul = 1ull << 30; break;
	default: break;
	}
	memcpy(num, s, len + 1);
	if (mul)
		num[len - 1] = '\0';
	v = parse_u64(what, num, 1, 1ull << 31);
	pages = mul ? (size_t)(v * mul / page) : (size_t)v;
	if (pages == 0 || (pages & (pages - 1)) || (mul && v * mul % page)) {
		fprintf(stderr, "%s: %s: the ring must be a power of two pages, got '%s'\n", prog,
			what, s);
		exit(EXIT_USAGE);
	}
	return pages;
}

static void parse_args(int argc, char **argv, struct floor_opts *o)
{
	static const struct option longopts[] = {
		{ "no-drain", no_argument, NULL, 'N' },
		{ "minimal", no_argument, NULL, 'M' },
		{ "comm-sideband", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "e:gF:c:m:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (o->nr_events == MAX_EVENTS)
				usage();
			o->events[o->nr_events++] = optarg;
			break;
		case 'g': o->callchain = true; break;
		case 'F': o->freq = parse_u64("-F", optarg, 1, 1000000); break;
		case 'c': o->period = parse_u64("-c", optarg, 1, ULLONG_MAX >> 1); break;
		case 'm': o->data_pages = parse_pages("-m", optarg); break;
		case 's': o->sb_pages = parse_pages("-s", optarg); break;
		case 'N': o->drain = false; break;
		case 'M': o->minimal = true; break;
		case 'C': o->comm_sideband = true; break;
		default: usage();
		}
	}
	if (optind != argc || !o->nr_events || (o->freq && o->period))
		usage();
}

/* The recorder's events for these options (src/record/events.c): the same
 * attributes `flightrec record --backward -e ... [-g] [-F|-c]` opens. */
static int add_events(const struct floor_opts *o, struct fr_evlist **el)
{
	struct fr_record_opts ro = { .freq = o->freq, .period = o->period,
				     .callgraph = o->callchain ? CG_FP : CG_NONE };

	for (int i = 0; i < o->nr_events; i++)
		ro.events[ro.nr_events++] = o->events[i];
	return fr_record__build_evlist(&ro, el, false);
}

/* The recorder's messages (an unknown event, ...) on stderr. */
static void print_msg(bool info, const char *what, const char *fmt, va_list ap)
{
	(void)info;
	fprintf(stderr, "%s: ", prog);
	if (what)
		fprintf(stderr, "%s: ", what);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static int noop_cb(void *ctx, size_t cpu_idx, const struct perf_event_header *h)
{
	(void)ctx;
	(void)cpu_idx;
	(void)h;
	return 0;
}

/* Wait for a stop signal, emptying the sideband rings when they wake us. */
static void wait_loop(struct fr_evlist *el, int sfd, bool drain)
{
	struct pollfd fds[1 + 256];
	size_t nsb = fr_evlist__sideband_pollfds(el, fds + 1, drain ? 256 : 0);

	for (;;) {
		fds[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		if (poll(fds, 1 + nsb, -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "%s: poll: %s\n", prog, strerror(errno));
			return;
		}
		if (fds[0].revents & POLLIN)
			return;
		for (size_t i = 1; i <= nsb; i++)
			if (fds[i].revents & POLLHUP)
				fds[i].fd = -1;
		fr_evlist__drain_sideband(el, noop_cb, NULL);
	}
}

int main(int argc, char **argv)
{
	struct floor_opts o = { .data_pages = 128, .sb_pages = SB_PAGES, .drain = true };
	struct fr_target t = { .kind = FR_TARGET_SYSTEM };
	struct fr_evlist_opts eo = { .sb_pages = SB_PAGES, .backward = true };
	struct fr_open_error oe;
	struct fr_evlist *el = NULL;
	unsigned long long lost = 0;
	sigset_t mask;
	int err, sfd, ret = 2;

	parse_args(argc, argv, &o);
	fr_msg__set_sink(print_msg);
	eo.data_pages = o.data_pages;
	eo.sb_pages = o.sb_pages;
	eo.sb_in_samples = o.minimal;
	ret = add_events(&o, &el);
	if (ret)
		goto out;
	if (!o.minimal && !o.comm_sideband && fr_record__add_name_tracepoints(el))
		fprintf(stderr, "%s: the name tracepoints cannot be opened: COMMs on the sideband\n",
			prog);
	ret = 2;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (sfd < 0) {
		fprintf(stderr, "%s: signalfd: %s\n", prog, strerror(errno));
		goto out;
	}
	err = fr_evlist__open(el, &t, &eo, &oe);
	if (!err)
		err = fr_evlist__enable(el);
	if (err) {
		fprintf(stderr, "%s: %s on CPU %d: %s\n", prog, oe.op ? oe.op : "enable", oe.cpu,
			strerror(-err));
		ret = err == -EACCES || err == -EPERM || err == -EOPNOTSUPP ? 3 : 2;
		goto out;
	}
	printf("ready\n");
	fflush(stdout);
	wait_loop(el, sfd, o.drain);
	fr_evlist__disable(el);
	for (size_t ci = 0; ci < fr_evlist__nr_cpus(el); ci++) {
		uint64_t l;

		if (!fr_evlist__lost_samples(el, ci, &l))
			lost += l;
	}
	fprintf(stderr, "%s: stopped: %llu samples lost\n", prog, lost);
	ret = 0;
out:
	fr_evlist__delete(el);
	return ret;
}
