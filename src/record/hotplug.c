/* src/record/hotplug.c: CPUs that go offline, come back or come online for
 * the first time under a recording (a per-task one: only a new CPU, which
 * its events do not cover, is said and listed). The kernel's uevents
 * (NETLINK_KOBJECT_UEVENT) wake the loop and the online list says which CPU
 * changed; a CPU that returns gets its events opened again into the same
 * rings (the kernel drops a CPU's events when it goes), one offline since
 * the start gets its events and rings now (the evlist has a slot per
 * possible CPU), the session and source are told, and each CPU's time
 * offline (for a new one: from the start) goes into the files.
 */
#include "config.h"

#include <errno.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/grow.h"
#include "src/record/session_internal.h"
#include "src/util.h"

#define MAX_GAPS 20            /* kept for the files: the newest (a META value is < 1 KiB) */
#define POLL_NS 1000000000ull  /* without uevents, the online list is read this often */

struct gap {
	uint32_t cpu;
	uint64_t from, to;         /* CLOCK_MONOTONIC ns; to 0: still offline */
};

struct fr_hotplug {
	struct fr_session *s;
	struct fr_evlist *el;
	int fd;                    /* the uevent socket, -1: none (polled at ticks) */
	bool *online;              /* per CPU index of the evlist, as last seen */
	struct gap gaps[MAX_GAPS];
	size_t nr_gaps, first;     /* a ring of the newest MAX_GAPS */
	int said_new[16];          /* CPUs online that the evlist has no slot for
				    * (the possible list was unreadable), said once */
	size_t nr_new;
	uint64_t checked_ns;
};

int fr_hotplug__new(struct fr_session *s, struct fr_hotplug **out)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	struct fr_hotplug *h = calloc(1, sizeof(*h));
	struct fr_evlist *el = s->el;
	size_t n = fr_evlist__nr_cpus(el);

	if (!h || !(h->online = calloc(n ? n : 1, sizeof(*h->online)))) {
		free(h);
		return -ENOMEM;
	}
	h->s = s;
	h->el = el;
	for (size_t i = 0; i < n; i++)   /* the others: offline at the start */
		h->online[i] = fr_evlist__cpu_opened(el, i);
	h->fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		       NETLINK_KOBJECT_UEVENT);
	if (h->fd >= 0 && bind(h->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(h->fd);   /* refused (a network namespace): polled instead */
		h->fd = -1;
	}
	*out = h;
	return 0;
}

void fr_hotplug__delete(struct fr_hotplug *h)
{
	if (!h)
		return;
	if (h->fd >= 0)
		close(h->fd);
	free(h->online);
	free(h);
}

int fr_hotplug__fd(const struct fr_hotplug *h)
{
	return h ? h->fd : -1;
}

/* Whether a uevent about a CPU came (the messages are read and dropped: only
 * the online list is trusted). */
static bool cpu_event(struct fr_hotplug *h)
{
	char buf[4096];
	bool any = false;
	ssize_t n;

	while ((n = recv(h->fd, buf, sizeof(buf) - 1, 0)) > 0) {
		buf[n] = '\0';
		if (strstr(buf, "/devices/system/cpu/"))
			any = true;
	}
	return any;
}

static struct gap *open_gap(struct fr_hotplug *h, uint32_t cpu)
{
	for (size_t k = 0; k < h->nr_gaps; k++) {
		struct gap *g = &h->gaps[(h->first + k) % MAX_GAPS];

		if (g->cpu == cpu && !g->to)
			return g;
	}
	return NULL;
}

static void add_gap(struct fr_hotplug *h, uint32_t cpu, uint64_t now)
{
	size_t at = (h->first + h->nr_gaps) % MAX_GAPS;

	if (h->nr_gaps == MAX_GAPS)
		h->first = (h->first + 1) % MAX_GAPS;   /* the oldest goes */
	else
		h->nr_gaps++;
	h->gaps[at] = (struct gap){ cpu, now, 0 };
}

static bool in_evlist(const struct fr_evlist *el, int cpu)
{
	for (size_t i = 0; i < fr_evlist__nr_cpus(el); i++)
		if (fr_evlist__cpu(el, i) == cpu)
			return true;
	return false;
}

static void new_cpu(struct fr_hotplug *h, int cpu)
{
	for (size_t k = 0; k < h->nr_new; k++)
		if (h->said_new[k] == cpu)
			return;
	if (h->nr_new < sizeof(h->said_new) / sizeof(h->said_new[0]))
		h->said_new[h->nr_new++] = cpu;
	if (!fr_evlist__follows_cpus(h->el))
		fr_info("CPU %d came online after the start: a per-task recording (a command, -p) "
			"has no events on it: its threads' time there is not recorded (-a and -G "
			"record a CPU that comes online)", cpu);
	else
		fr_info("CPU %d came online after the start, but the possible CPUs could not be "
			"read then: it is not recorded (a recorder started now records it)", cpu);
}

/* CPU index i, offline since the start, came online: its events and rings
 * opened for the first time; its gap is from the start until now. */
static void came_online(struct fr_hotplug *h, size_t i, uint64_t now, bool stopped)
{
	int cpu = fr_evlist__cpu(h->el, i), err;
	struct gap *g = NULL;

	for (size_t k = 0; k < h->nr_gaps && !g; k++) {   /* a failed opening's, before */
		g = &h->gaps[(h->first + k) % MAX_GAPS];
		if (g->cpu != (uint32_t)cpu || g->from != h->s->start_ns)
			g = NULL;
	}
	if (!g) {
		add_gap(h, (uint32_t)cpu, h->s->start_ns);
		g = &h->gaps[(h->first + h->nr_gaps - 1) % MAX_GAPS];
	}
	g->to = now;
	if (stopped)
		return;   /* the recording is ending: nothing more is recorded */
	err = fr_evlist__reopen_cpu(h->el, i);
	if (!err)
		err = fr_session_cpu_opened(h->s, i, true);
	if (err)
		g->to = 0;   /* not recorded: the gap goes on */
	if (err)
		fr_err("record", "CPU %d came online after the start, but its events could not "
		       "be opened: %s: it is not recorded", cpu, strerror(-err));
	else
		fr_info("CPU %d came online after the start (%.3f s in): recording it", cpu,
			(double)(now - h->s->start_ns) / 1e9);
}

void fr_hotplug__check(struct fr_hotplug *h, uint64_t now, bool stopped)
{
	size_t ncpu;
	int *cpus, n;

	if (!h)
		return;
	if (h->fd >= 0 ? !cpu_event(h) : now - h->checked_ns < POLL_NS)
		return;
	h->checked_ns = now;
	if ((n = fr_cpus__online(&cpus)) < 0)
		return;   /* unreadable: as it was */
	/* a per-task target's events follow its tasks: a CPU that goes loses
	 * nothing of them, one that returns has them again; only a new one is
	 * said (below) */
	ncpu = fr_evlist__follows_cpus(h->el) ? fr_evlist__nr_cpus(h->el) : 0;
	for (size_t i = 0; i < ncpu; i++) {
		int cpu = fr_evlist__cpu(h->el, i), err;
		bool on = false;
		struct gap *g;

		for (int k = 0; k < n && !on; k++)
			on = cpus[k] == cpu;
		if (on == h->online[i])
			continue;
		h->online[i] = on;
		if (!on && !fr_evlist__cpu_opened(h->el, i))
			continue;   /* never recorded (its opening failed): nothing changes */
		if (!on) {
			add_gap(h, (uint32_t)cpu, now);
			fr_info("CPU %d went offline: nothing is recorded on it until it returns", cpu);
			continue;
		}
		if (!fr_evlist__cpu_opened(h->el, i)) {
			came_online(h, i, now, stopped);
			continue;
		}
		g = open_gap(h, (uint32_t)cpu);
		if (g)
			g->to = now;
		err = stopped ? 0 : fr_evlist__reopen_cpu(h->el, i);
		if (!err && !stopped)
			err = fr_session_cpu_opened(h->s, i, false);
		if (err)
			fr_err("record", "CPU %d is back online, but its events could not be "
			       "opened again: %s: it stays unrecorded", cpu, strerror(-err));
		else
			fr_info("CPU %d is back online after %.3f s: recording it again", cpu,
				g ? (double)(g->to - g->from) / 1e9 : 0.0);
	}
	for (int k = 0; k < n; k++)
		if (!in_evlist(h->el, cpus[k]))
			new_cpu(h, cpus[k]);
	free(cpus);
}

void fr_hotplug__meta(const struct fr_hotplug *h, struct fr_composer *c)
{
	char buf[MAX_GAPS * 48 + 16], *p = buf;
	size_t left = sizeof(buf);

	if (!h)
		return;
	buf[0] = '\0';
	for (size_t k = 0; k < h->nr_gaps && left > 48; k++) {
		const struct gap *g = &h->gaps[(h->first + k) % MAX_GAPS];
		int w = snprintf(p, left, "%s%u:%llu-%llu", k ? "," : "", g->cpu,
				 (unsigned long long)g->from, (unsigned long long)g->to);

		if (w < 0 || (size_t)w >= left)
			break;
		p += w;
		left -= (size_t)w;
	}
	if (buf[0])
		fr_composer__meta(c, "cpu_offline", "%s", buf);
	p = buf;
	left = sizeof(buf);
	buf[0] = '\0';
	for (size_t k = 0; k < h->nr_new && left > 16; k++) {
		int w = snprintf(p, left, "%s%d", k ? "," : "", h->said_new[k]);

		if (w < 0 || (size_t)w >= left)
			break;
		p += w;
		left -= (size_t)w;
	}
	if (buf[0])
		fr_composer__meta(c, "cpu_not_recorded", "%s", buf);
}
