/* base/hmap.h: the one hash map: an open-addressing index from a 64-bit hash
 * to uint32 entry numbers (the entries live in the caller's array, the caller
 * compares keys), and the hash functions that feed it. Includes nothing of ours.
 */
#ifndef FR_BASE_HMAP_H
#define FR_BASE_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Linear probing over a power-of-two array of slots, at most half full; each
 * slot keeps the full hash, so growth rehashes without asking the caller and
 * a probe compares keys only where the whole hash matches. Removal shifts the
 * following cluster back (no tombstones). Zero-initialised == empty. */
struct fr_hmap_slot {
	uint64_t hash;
	uint32_t idx;
	uint32_t full;  /* 0: empty */
};

struct fr_hmap {
	struct fr_hmap_slot *slots;  /* NULL, or mask + 1 slots */
	size_t mask;
	size_t nr;
};

struct fr_hmap_it {
	uint64_t hash;
	size_t pos;  /* the next slot to look at */
};

void fr_hmap__exit(struct fr_hmap *m);       /* free; m is empty again */
void fr_hmap__clear(struct fr_hmap *m);      /* empty, memory kept */
size_t fr_hmap__count(const struct fr_hmap *m);
/* Room for n entries without another allocation. 0, or -ENOMEM (also when n
 * is too large to size); m unchanged on failure. */
int fr_hmap__reserve(struct fr_hmap *m, size_t n);
/* Index idx under hash (equal hashes and equal idx may repeat: the caller
 * decides what a duplicate is). 0, or -ENOMEM with m unchanged. */
int fr_hmap__add(struct fr_hmap *m, uint64_t hash, uint32_t idx);
/* Remove the pair (hash, idx). 0, or -ENOENT. */
int fr_hmap__remove(struct fr_hmap *m, uint64_t hash, uint32_t idx);
/* The pair (hash, old_idx) now names new_idx (an entry moved in the caller's
 * array). 0, or -ENOENT. */
int fr_hmap__replace(struct fr_hmap *m, uint64_t hash, uint32_t old_idx, uint32_t new_idx);

/* The entries whose stored hash equals hash, in the order they were added
 * (growth and removal keep it):
 *   for (ok = fr_hmap__first(&m, h, &it, &i); ok; ok = fr_hmap__next(&m, &it, &i))
 *           if (arr[i].key == key) return &arr[i];
 * The map must not change during the walk. */
static inline bool fr_hmap__next(const struct fr_hmap *m, struct fr_hmap_it *it, uint32_t *idx)
{
	for (;;) {
		const struct fr_hmap_slot *s = &m->slots[it->pos];

		if (!s->full)
			return false;
		it->pos = (it->pos + 1) & m->mask;
		if (s->hash == it->hash) {
			*idx = s->idx;
			return true;
		}
	}
}

static inline bool fr_hmap__first(const struct fr_hmap *m, uint64_t hash, struct fr_hmap_it *it,
				  uint32_t *idx)
{
	if (!m->nr)
		return false;
	it->hash = hash;
	it->pos = (size_t)hash & m->mask;
	return fr_hmap__next(m, it, idx);
}

/* Hashing. The map takes its home slot from the low bits of the hash, so
 * every hash given to it must come through these (or be as well mixed). */

/* murmur3's 64-bit finaliser: every input bit flips each output bit with
 * probability close to 1/2; a bijection (distinct inputs never collide). */
static inline uint64_t fr_hash__u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* h combined with x; order matters (mix(mix(s, a), b) != mix(mix(s, b), a)). */
static inline uint64_t fr_hash__mix(uint64_t h, uint64_t x)
{
	return fr_hash__u64((h * 0x9e3779b97f4a7c15ull) ^ x);
}

/* n bytes at p, eight at a time, then the tail and the length. */
static inline uint64_t fr_hash__bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t w;
	size_t len = n;

	for (; n >= 8; n -= 8, b += 8) {
		memcpy(&w, b, 8);
		h = fr_hash__mix(h, w);
	}
	w = 0;
	if (n)
		memcpy(&w, b, n);
	return fr_hash__mix(h, w ^ (uint64_t)len << 56);
}

static inline uint64_t fr_hash__str(uint64_t h, const char *s)
{
	return fr_hash__bytes(h, s, strlen(s));
}

#endif
