/* src/proc/table.c: the retained process/mapping table (proctable.h): images
 * per pid generation, fed from sideband records and /proc, garbage collected
 * by time, and (de)serialized as the PROCS blob.
 */
#include "config.h"
#include "src/util.h"
#include "src/proc/proctable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ring/record.h"

struct img {
	struct fr_proc p;
	size_t prev;                /* older image of the same pid, or NONE */
	size_t cap_comms, cap_maps;
};

/* A process that renames itself or maps code without end keeps only its
 * newest history: older entries predate any window a snapshot can still hold
 * (the renames and mappings of one image between two snapshots). */
#define MAX_COMMS 4096
#define MAX_MAPS 65536
#define NONE ((size_t)-1)

struct slot {
	uint32_t key;               /* pid + 1; 0 empty */
	size_t newest;
};

struct fr_proctable {
	struct img *imgs;
	size_t nr, cap, exited;
	struct slot *slots;
	size_t nslots, used;
};

struct fr_proctable *fr_proctable__new(void)
{
	return calloc(1, sizeof(struct fr_proctable));
}

static void img_free(struct img *im)
{
	for (size_t i = 0; i < im->p.nr_maps; i++)
		free(im->p.maps[i].path);
	free(im->p.maps);
	free(im->p.comms);
}

void fr_proctable__delete(struct fr_proctable *pt)
{
	if (!pt)
		return;
	for (size_t i = 0; i < pt->nr; i++)
		img_free(&pt->imgs[i]);
	free(pt->imgs);
	free(pt->slots);
	free(pt);
}

static struct slot *slot_find(struct fr_proctable *pt, uint32_t pid, bool add)
{
	if (add && (pt->used + 1) * 2 > pt->nslots) {
		size_t n = pt->nslots ? pt->nslots * 2 : 256;
		struct slot *old = pt->slots, *ns = calloc(n, sizeof(*ns));
		size_t oldn = pt->nslots;

		if (!ns)
			return NULL;
		pt->slots = ns;
		pt->nslots = n;
		pt->used = 0;
		for (size_t i = 0; i < oldn; i++)
			if (old[i].key)
				slot_find(pt, old[i].key - 1, true)->newest = old[i].newest;
		free(old);
	}
	if (!pt->nslots)
		return NULL;
	for (size_t i = (pid * 2654435761u) & (pt->nslots - 1);; i = (i + 1) & (pt->nslots - 1)) {
		if (pt->slots[i].key == pid + 1)
			return &pt->slots[i];
		if (!pt->slots[i].key) {
			if (!add)
				return NULL;
			pt->slots[i].key = pid + 1;
			pt->slots[i].newest = NONE;
			pt->used++;
			return &pt->slots[i];
		}
	}
}

static struct img *newest(struct fr_proctable *pt, uint32_t pid)
{
	struct slot *s = slot_find(pt, pid, false);

	return s && s->newest != NONE ? &pt->imgs[s->newest] : NULL;
}

/* A new image for pid from time t; the previous one (if alive) ends at t. */
static struct img *new_img(struct fr_proctable *pt, uint32_t pid, uint32_t ppid, uint64_t t)
{
	struct slot *s = slot_find(pt, pid, true);
	struct img *im;

	if (!s || fr_grow(&pt->imgs, &pt->cap, pt->nr + 1, sizeof(*pt->imgs), 16))
		return NULL;
	if (s->newest != NONE && !pt->imgs[s->newest].p.exit_time) {
		pt->imgs[s->newest].p.exit_time = t ? t : 1;
		pt->exited++;
	}
	im = &pt->imgs[pt->nr];
	memset(im, 0, sizeof(*im));
	im->p.pid = pid;
	im->p.ppid = ppid;
	im->p.start_time = t;
	im->prev = s->newest;
	s->newest = pt->nr++;
	return im;
}

static int add_comm(struct img *im, uint64_t t, const char *comm)
{
	struct fr_pcomm *c;

	if (im->p.nr_comms && !strncmp(im->p.comms[im->p.nr_comms - 1].comm, comm, 15))
		return 0;
	if (im->p.nr_comms == MAX_COMMS) {
		memmove(im->p.comms, im->p.comms + MAX_COMMS / 2,
			(MAX_COMMS / 2) * sizeof(*im->p.comms));
		im->p.nr_comms = MAX_COMMS / 2;
	}
	if (fr_grow(&im->p.comms, &im->cap_comms, im->p.nr_comms + 1, sizeof(*c), 16))
		return -ENOMEM;
	c = im->p.comms + im->p.nr_comms++;
	memset(c, 0, sizeof(*c));
	c->time = t;
	strncpy(c->comm, comm, sizeof(c->comm) - 1);
	return 0;
}

static int add_map(struct img *im, const struct fr_pmap *m)
{
	struct fr_pmap *n;

	if (im->p.nr_maps == MAX_MAPS) {
		for (size_t i = 0; i < MAX_MAPS / 2; i++)
			free(im->p.maps[i].path);
		memmove(im->p.maps, im->p.maps + MAX_MAPS / 2, (MAX_MAPS / 2) * sizeof(*im->p.maps));
		im->p.nr_maps = MAX_MAPS / 2;
	}
	if (fr_grow(&im->p.maps, &im->cap_maps, im->p.nr_maps + 1, sizeof(*n), 16))
		return -ENOMEM;
	n = im->p.maps + im->p.nr_maps;
	*n = *m;
	n->path = strdup(m->path ? m->path : "");
	if (!n->path)
		return -ENOMEM;
	im->p.nr_maps++;
	return 0;
}

int fr_proctable__add_image(struct fr_proctable *pt, const struct fr_proc *p)
{
	struct slot *s = slot_find(pt, p->pid, true);
	struct img *im;
	int err = 0;

	if (!s || fr_grow(&pt->imgs, &pt->cap, pt->nr + 1, sizeof(*pt->imgs), 16))
		return -ENOMEM;
	im = &pt->imgs[pt->nr];
	memset(im, 0, sizeof(*im));
	im->p.pid = p->pid;
	im->p.ppid = p->ppid;
	im->p.start_time = p->start_time;
	im->p.exit_time = p->exit_time;
	im->prev = s->newest;
	s->newest = pt->nr++;
	pt->exited += p->exit_time != 0;
	for (size_t i = 0; i < p->nr_comms && !err; i++)
		err = add_comm(im, p->comms[i].time, p->comms[i].comm);
	for (size_t i = 0; i < p->nr_maps && !err; i++)
		err = add_map(im, &p->maps[i]);
	return err;
}

/* The image a record of pid at time t belongs to, created if unknown. */
static struct img *img_at(struct fr_proctable *pt, uint32_t pid, uint64_t t)
{
	struct img *im = newest(pt, pid);

	return im && !im->p.exit_time ? im : new_img(pt, pid, 0, im ? t : 0);
}

int fr_proctable__add_proc(struct fr_proctable *pt, uint32_t pid, uint32_t ppid, const char *comm)
{
	struct img *im = new_img(pt, pid, ppid, 0);

	return im ? add_comm(im, 0, comm) : -ENOMEM;
}

int fr_proctable__add_map(struct fr_proctable *pt, uint32_t pid, const struct fr_pmap *m)
{
	struct img *im = img_at(pt, pid, m->time);

	return im ? add_map(im, m) : -ENOMEM;
}

static int on_comm(struct fr_proctable *pt, const struct perf_event_header *h, uint64_t t,
		   uint64_t sample_type)
{
	struct fr_comm c;
	struct img *im;

	/* the name must end before the sample_id trailer */
	if (fr_record__comm(h, &c) ||
	    16 + strlen(c.comm) + 1 + fr_record__id_size(sample_type) > h->size)
		return -EBADMSG;
	if (c.pid != c.tid && !c.exec)
		return 0;   /* a thread's name: samples carry the tid's comm via dump */
	if (c.exec) {
		struct img *old = newest(pt, c.pid);
		uint64_t late_exit = 0;

		/* an exit seen before this (earlier) exec: it ends the new image */
		if (old && old->p.exit_time > t && t > old->p.start_time) {
			late_exit = old->p.exit_time;
			old->p.exit_time = 0;
			pt->exited--;
		}
		im = new_img(pt, c.pid, old ? old->p.ppid : 0, t);
		if (im && late_exit) {
			im->p.exit_time = late_exit;
			pt->exited++;
		}
	} else {
		im = img_at(pt, c.pid, t);
	}
	return im ? add_comm(im, t, c.comm) : -ENOMEM;
}

static int on_task(struct fr_proctable *pt, const struct perf_event_header *h)
{
	struct fr_task tk;
	struct img *im, *parent;

	if (fr_record__task(h, &tk))
		return -EBADMSG;
	if (h->type == PERF_RECORD_EXIT) {
		im = newest(pt, tk.pid);
		if (tk.pid == tk.tid && im && !im->p.exit_time) {
			im->p.exit_time = tk.time ? tk.time : 1;
			pt->exited++;
		}
		return 0;
	}
	if (tk.pid == tk.ppid)
		return 0;   /* a new thread */
	/* a new process: a copy of the parent's image (comm, maps) */
	parent = newest(pt, tk.ppid);
	im = new_img(pt, tk.pid, tk.ppid, tk.time);
	if (!im)
		return -ENOMEM;
	parent = newest(pt, tk.ppid);   /* new_img may have moved the array */
	if (parent && parent->p.nr_comms &&
	    add_comm(im, tk.time, parent->p.comms[parent->p.nr_comms - 1].comm))
		return -ENOMEM;
	for (size_t i = 0; parent && i < parent->p.nr_maps; i++) {
		int err = add_map(&pt->imgs[pt->nr - 1], &parent->p.maps[i]);

		if (err)
			return err;
		parent = newest(pt, tk.ppid);
	}
	return 0;
}

static int on_mmap2(struct fr_proctable *pt, const struct perf_event_header *h, uint64_t t)
{
	struct fr_mmap2 m;
	struct fr_pmap pm = { 0 };

	if (fr_record__mmap2(h, &m))
		return -EBADMSG;
	if (!(m.prot & PROT_EXEC))
		return 0;
	pm.time = t;
	pm.start = m.addr;
	pm.len = m.len;
	pm.pgoff = m.pgoff;
	pm.prot = m.prot;
	pm.path = (char *)m.filename;
	if (m.has_build_id && m.build_id_size) {
		pm.build_id_size = m.build_id_size;
		memcpy(pm.build_id, m.build_id, sizeof(pm.build_id));
	} else if (m.filename[0] == '/') {
		/* the kernel gave none: read the note while the file still exists */
		pm.build_id_size = fr_buildid__read_pid(m.pid, m.filename, pm.build_id);
	}
	return fr_proctable__add_map(pt, m.pid, &pm);
}

int fr_proctable__record(struct fr_proctable *pt, const struct perf_event_header *h,
			 uint64_t sample_type)
{
	struct fr_sample id;

	return fr_proctable__record_at(pt, h, sample_type,
				       fr_record__parse_id(h, sample_type, &id) ? 0 : id.time);
}

int fr_proctable__record_at(struct fr_proctable *pt, const struct perf_event_header *h,
			    uint64_t sample_type, uint64_t t)
{
	switch (h->type) {
	case PERF_RECORD_COMM: return on_comm(pt, h, t, sample_type);
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: return on_task(pt, h);
	case PERF_RECORD_MMAP2: return on_mmap2(pt, h, t);
	default: return 0;
	}
}

size_t fr_proctable__nr(const struct fr_proctable *pt)
{
	return pt->nr;
}

size_t fr_proctable__nr_exited(const struct fr_proctable *pt)
{
	return pt->exited;
}

const struct fr_proc *fr_proctable__get(const struct fr_proctable *pt, size_t i)
{
	return i < pt->nr ? &pt->imgs[i].p : NULL;
}

const struct fr_proc *fr_proctable__find(const struct fr_proctable *pt, uint32_t pid, uint64_t t)
{
	struct slot *s = slot_find((struct fr_proctable *)pt, pid, false);
	size_t i = s ? s->newest : NONE;

	for (; i != NONE; i = pt->imgs[i].prev)
		if (pt->imgs[i].p.start_time <= t)
			return &pt->imgs[i].p;
	return NULL;
}

const char *fr_proc__comm(const struct fr_proc *p, uint64_t t)
{
	const char *c = NULL;

	for (size_t i = 0; i < p->nr_comms; i++)
		if (p->comms[i].time <= t || !c)
			c = p->comms[i].comm;
	return c;
}

const struct fr_pmap *fr_proc__map(const struct fr_proc *p, uint64_t addr, uint64_t t)
{
	for (size_t i = p->nr_maps; i-- > 0;) {
		const struct fr_pmap *m = &p->maps[i];

		if (m->time <= t && addr >= m->start && addr - m->start < m->len)
			return m;
	}
	return NULL;
}

/* Comms renamed away before `before`: keep the last of them (the name at
 * `before`) and the newer ones. */
static void trim_comms(struct img *im, uint64_t before)
{
	size_t k = 0;

	while (k + 1 < im->p.nr_comms && im->p.comms[k + 1].time <= before)
		k++;
	if (!k)
		return;
	memmove(im->p.comms, im->p.comms + k, (im->p.nr_comms - k) * sizeof(*im->p.comms));
	im->p.nr_comms -= k;
}

size_t fr_proctable__gc(struct fr_proctable *pt, uint64_t before)
{
	size_t w = 0, dropped = 0;

	for (size_t i = 0; i < pt->nr; i++)
		trim_comms(&pt->imgs[i], before);
	for (size_t i = 0; i < pt->nr; i++) {
		struct img *im = &pt->imgs[i];

		if (im->p.exit_time && im->p.exit_time < before) {
			img_free(im);
			dropped++;
			continue;
		}
		pt->imgs[w++] = *im;
	}
	if (!dropped)
		return 0;
	pt->nr = w;
	pt->exited -= dropped;
	/* rebuild the pid index and the generation chains */
	memset(pt->slots, 0, pt->nslots * sizeof(*pt->slots));
	pt->used = 0;
	for (size_t i = 0; i < pt->nr; i++) {
		struct slot *s = slot_find(pt, pt->imgs[i].p.pid, true);

		pt->imgs[i].prev = s->newest;
		s->newest = i;
	}
	return dropped;
}
