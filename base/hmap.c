/* base/hmap.c: the one hash map's growth, insertion and removal (lookups are
 * inline in base/hmap.h). Linear probing, at most half full, backward-shift
 * deletion; every size is checked for overflow before it is allocated.
 */
#include "base/hmap.h"

#include <errno.h>
#include <stdlib.h>

enum { MIN_SLOTS = 16 };

void fr_hmap__exit(struct fr_hmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->mask = 0;
	m->nr = 0;
}

void fr_hmap__clear(struct fr_hmap *m)
{
	if (m->slots)
		memset(m->slots, 0, (m->mask + 1) * sizeof(*m->slots));
	m->nr = 0;
}

size_t fr_hmap__count(const struct fr_hmap *m)
{
	return m->nr;
}

static void put(struct fr_hmap_slot *slots, size_t mask, uint64_t hash, uint32_t idx)
{
	size_t j = (size_t)hash & mask;

	while (slots[j].full)
		j = (j + 1) & mask;
	slots[j].hash = hash;
	slots[j].idx = idx;
	slots[j].full = 1;
}

/* Move to nslots (a power of two that holds every entry at most half full). */
static int rehash(struct fr_hmap *m, size_t nslots)
{
	struct fr_hmap_slot *s = calloc(nslots, sizeof(*s));
	size_t i;

	if (!s)
		return -ENOMEM;
	if (m->slots) {
		/* from the start of a cluster (an empty slot: the map is never
		 * full), so equal hashes keep the order they were added in */
		size_t start = 0, k;

		while (m->slots[start].full)
			start++;
		for (k = 1; k <= m->mask; k++) {
			i = (start + k) & m->mask;
			if (m->slots[i].full)
				put(s, nslots - 1, m->slots[i].hash, m->slots[i].idx);
		}
		free(m->slots);
	}
	m->slots = s;
	m->mask = nslots - 1;
	return 0;
}

int fr_hmap__reserve(struct fr_hmap *m, size_t n)
{
	size_t have = m->slots ? m->mask + 1 : 0;
	size_t nslots = MIN_SLOTS;

	if (n <= have / 2)
		return 0;
	/* at most half full: 2n slots, rounded up to a power of two (< 4n) */
	if (n > SIZE_MAX / 4 / sizeof(struct fr_hmap_slot))
		return -ENOMEM;
	while (nslots < 2 * n)
		nslots *= 2;
	return rehash(m, nslots);
}

int fr_hmap__add(struct fr_hmap *m, uint64_t hash, uint32_t idx)
{
	int err = fr_hmap__reserve(m, m->nr + 1);  /* doubles when half full */

	if (err)
		return err;
	put(m->slots, m->mask, hash, idx);
	m->nr++;
	return 0;
}

static struct fr_hmap_slot *find(const struct fr_hmap *m, uint64_t hash, uint32_t idx)
{
	size_t j;

	if (!m->nr)
		return NULL;
	for (j = (size_t)hash & m->mask; m->slots[j].full; j = (j + 1) & m->mask)
		if (m->slots[j].hash == hash && m->slots[j].idx == idx)
			return &m->slots[j];
	return NULL;
}

int fr_hmap__replace(struct fr_hmap *m, uint64_t hash, uint32_t old_idx, uint32_t new_idx)
{
	struct fr_hmap_slot *s = find(m, hash, old_idx);

	if (!s)
		return -ENOENT;
	s->idx = new_idx;
	return 0;
}

/* Knuth's algorithm R (TAOCP 6.4): after emptying slot i, each later slot of
 * the cluster whose home is not cyclically in (i, j] moves back into i. */
int fr_hmap__remove(struct fr_hmap *m, uint64_t hash, uint32_t idx)
{
	struct fr_hmap_slot *s = find(m, hash, idx);
	size_t i, j, home;

	if (!s)
		return -ENOENT;
	i = (size_t)(s - m->slots);
	for (j = (i + 1) & m->mask; m->slots[j].full; j = (j + 1) & m->mask) {
		home = (size_t)m->slots[j].hash & m->mask;
		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].full = 0;
	m->nr--;
	return 0;
}
