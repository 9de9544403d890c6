/* src/record/waits.c: loading waits.bpf.c's programs (libbpf skeleton),
 * pointing them at the offcpu event of each CPU, and attaching them to the
 * BTF tracepoints sched_switch, sched_wakeup(_new) and rseq_update.
 */
#include "config.h"
#include "src/record/waits.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "src/record/waits.skel.h"

struct fr_waits {
	struct fr_waits_bpf *skel;
};

/* library code says nothing: libbpf's messages are dropped */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int find_event(const struct fr_evlist *el, size_t *ev)
{
	for (size_t i = 0; i < fr_evlist__nr_events(el); i++)
		if (!strcmp(fr_evlist__event(el, i)->name, FR_WAITS_EVENT)) {
			*ev = i;
			return 0;
		}
	return -ENOENT;
}

int fr_waits__open(struct fr_evlist *el, uint64_t thresh_ns, int self, struct fr_waits **out)
{
	struct fr_waits *w;
	size_t ev;
	int err;

	if (!thresh_ns || thresh_ns > FR_WAITS_MAX_THRESH_NS)
		return -EINVAL;
	if ((err = find_event(el, &ev)))
		return err;
	if (!(w = calloc(1, sizeof(*w))))
		return -ENOMEM;
	libbpf_set_print(quiet);
	if (!(w->skel = fr_waits_bpf__open())) {
		err = errno ? -errno : -ENOMEM;
		goto fail;
	}
	w->skel->rodata->thresh_ns = thresh_ns;
	w->skel->rodata->self_tgid = (uint32_t)self;
	if ((err = fr_waits_bpf__load(w->skel)))
		goto fail;
	for (size_t ci = 0; ci < fr_evlist__nr_cpus(el); ci++) {
		uint32_t cpu = (uint32_t)fr_evlist__cpu(el, ci);
		int fd = fr_evlist__event_fd(el, ev, ci);

		if (fd < 0) {
			err = -ENOENT;
			goto fail;
		}
		if ((err = bpf_map__update_elem(w->skel->maps.samples, &cpu, sizeof(cpu), &fd,
						sizeof(fd), BPF_ANY)))
			goto fail;
	}
	/* a CPU back online gets its new event in the map */
	fr_evlist__set_bpf_map(el, ev, bpf_map__fd(w->skel->maps.samples));
	if ((err = fr_waits_bpf__attach(w->skel)))
		goto fail;
	*out = w;
	return 0;
fail:
	fr_waits__delete(w);
	return err < 0 ? err : -EINVAL;
}

void fr_waits__delete(struct fr_waits *w)
{
	if (!w)
		return;
	fr_waits_bpf__destroy(w->skel);
	free(w);
}
