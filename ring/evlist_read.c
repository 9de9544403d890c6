/* ring/evlist_read.c: reading an evlist's rings: the pollfds of the
 * sideband and trigger rings, draining them, reading forward or drained
 * sample rings (lapped reads told), streaming backward ones through the
 * copier, and the per-CPU counts the kernel keeps (and how many CPUs have
 * rings).
 */
#include "config.h"
#include "ring/evlist_impl.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

bool fr_evlist__follows_cpus(const struct fr_evlist *el)
{
	return el->target.kind == FR_TARGET_SYSTEM || el->target.kind == FR_TARGET_CGROUP;
}

size_t fr_evlist__nr_opened(const struct fr_evlist *el)
{
	size_t n = 0;

	for (size_t ci = 0; ci < el->nr_cpus; ci++)
		n += fr_evlist__cpu_opened(el, ci);
	return n;
}

/* CPU index ci's rings, or NULL: none yet (offline since the start) or no
 * such CPU. Reader threads call it while the loop's thread may open it. */
static const struct cpu_rings *rings_of(const struct fr_evlist *el, size_t ci)
{
	return el->rings && fr_evlist__cpu_opened(el, ci) ? &el->rings[ci] : NULL;
}

size_t fr_evlist__sideband_pollfds(const struct fr_evlist *el, struct pollfd *fds, size_t max)
{
	size_t n = 0;

	for (size_t ci = 0; ci < el->nr_cpus && n < max; ci++) {
		if (!rings_of(el, ci) || el->rings[ci].sb_leader < 0)
			continue;
		fds[n].fd = el->rings[ci].sb_leader;
		fds[n].events = POLLIN;
		fds[n].revents = 0;
		n++;
	}
	return n;
}

size_t fr_evlist__trigger_pollfds(const struct fr_evlist *el, struct pollfd *fds, size_t max)
{
	size_t n = 0;

	for (size_t ci = 0; el->trig_event && ci < el->nr_cpus && n < max; ci++) {
		if (!rings_of(el, ci) || el->rings[ci].trig_leader < 0)
			continue;
		fds[n].fd = el->rings[ci].trig_leader;
		fds[n].events = POLLIN;
		fds[n].revents = 0;
		n++;
	}
	return n;
}

static int tell_lapped(struct fr_ring *r, size_t ci, fr_lapped_cb lapped, void *ctx)
{
	uint64_t bytes, nr;

	return fr_ring__read_overwritten(r, &bytes, &nr) && lapped ? lapped(ctx, ci, nr, bytes) : 0;
}

/* Ring r (may be NULL) to its head through cb; a drained backward ring's
 * overwritten records told to lapped (if given) before and after. */
static int drain_ring(struct fr_ring *r, size_t ci, fr_sideband_cb cb, fr_lapped_cb lapped,
		      void *ctx)
{
	const struct perf_event_header *h;
	int err = r ? fr_ring__read_init(r) : -EAGAIN, ret;

	if (err)
		return err == -EAGAIN ? 0 : err;
	ret = tell_lapped(r, ci, lapped, ctx);
	while (!ret && (h = fr_ring__read_event(r, &err)))
		ret = cb(ctx, ci, h);
	fr_ring__read_done(r);
	if (!ret)
		ret = tell_lapped(r, ci, lapped, ctx);
	return ret ? ret : err;
}

int fr_evlist__drain_trigger(struct fr_evlist *el, fr_sideband_cb cb, void *ctx)
{
	int ret = 0;

	for (size_t ci = 0; el->trig_event && ci < el->nr_cpus && !ret; ci++)
		ret = rings_of(el, ci) ? drain_ring(el->rings[ci].trigger, ci, cb, NULL, ctx) : 0;
	return ret;
}

int fr_evlist__event_fd(const struct fr_evlist *el, size_t ev, size_t cpu_idx)
{
	for (size_t i = el->nr_fds; i-- > 0;)   /* the newest: a CPU back online has two */
		if (el->fds[i].event == (int)ev && el->fds[i].cpu_idx == cpu_idx)
			return el->fds[i].fd;
	return -1;
}

int fr_evlist__sample_fd(const struct fr_evlist *el, size_t cpu_idx)
{
	const struct cpu_rings *cr = rings_of(el, cpu_idx);

	return cr ? cr->sample_leader : -1;
}

int fr_evlist__sample_written(const struct fr_evlist *el, size_t ci, uint64_t *written,
			      size_t *size)
{
	const struct cpu_rings *cr = rings_of(el, ci);
	const struct fr_ring *r = cr ? cr->samples : NULL;
	uint64_t head;

	if (!r)
		return -ENOENT;
	head = __atomic_load_n(&fr_ring__control(r)->data_head, __ATOMIC_ACQUIRE);
	*written = el->backward ? -head : head;
	*size = fr_ring__data_size(r);
	return 0;
}

int fr_evlist__read_samples(struct fr_evlist *el, size_t ci, fr_sideband_cb cb,
			    fr_lapped_cb lapped, void *ctx)
{
	const struct cpu_rings *cr = rings_of(el, ci);

	return drain_ring(cr ? cr->samples : NULL, ci, cb, lapped, ctx);
}

int fr_evlist__drain_sideband(struct fr_evlist *el, fr_sideband_cb cb, void *ctx)
{
	int ret = 0;

	for (size_t ci = 0; el->rings && ci < el->nr_cpus; ci++) {   /* not opened: no rings */
		const struct cpu_rings *cr = rings_of(el, ci);
		int err = cr ? drain_ring(cr->sideband, ci, cb, NULL, ctx) : 0;

		if (err && err != -EBADMSG)
			return err;
		if (err)
			ret = err;   /* a corrupt ring was skipped to its head: go on */
	}
	return ret;
}

int fr_evlist__stream(struct fr_evlist *el, struct fr_ring_stream *streams,
		      enum fr_copy_path *paths, struct fr_copy_stats *st, fr_copy_chunk_fn fn,
		      void *ctx)
{
	if (!el->copier) {
		memset(st, 0, sizeof(*st));
		return -EINVAL;
	}
	return fr_copier__stream(el->copier, streams, paths, st, fn, ctx);
}

int fr_evlist__lost_samples(const struct fr_evlist *el, size_t cpu_idx, uint64_t *lost)
{
	*lost = 0;
	if (!el->read_lost)
		return 0;
	for (size_t i = 0; i < el->nr_fds; i++) {
		uint64_t v[2];

		if (el->fds[i].cpu_idx != cpu_idx || el->fds[i].event < 0)
			continue;
		if (read(el->fds[i].fd, v, sizeof(v)) != (ssize_t)sizeof(v))
			return -errno ? -errno : -EIO;
		*lost += v[1];
	}
	return 0;
}
