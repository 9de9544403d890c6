/* symbolize/strpool.c: the string pool (see strpool.h): strings in 64 KiB
 * arena blocks, an open-addressing table of pointers keyed by FNV-1a.
 */
#include "config.h"
#include "symbolize/strpool.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_SIZE (64u * 1024u)

struct block {
	struct block *next;
	size_t used, size;
	char data[];
};

struct slot {
	const char *s;
	uint32_t hash;
	uint32_t len;
};

struct fr_strpool {
	struct block *blocks;
	struct slot *slots;
	size_t cap, used;
};

static uint32_t fnv1a(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++) {
		h ^= (uint8_t)s[i];
		h *= 16777619u;
	}
	return h;
}

struct fr_strpool *fr_strpool__new(void)
{
	struct fr_strpool *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->cap = 1024;
	p->slots = calloc(p->cap, sizeof(*p->slots));
	if (!p->slots) {
		free(p);
		return NULL;
	}
	return p;
}

void fr_strpool__delete(struct fr_strpool *p)
{
	if (!p)
		return;
	while (p->blocks) {
		struct block *b = p->blocks;

		p->blocks = b->next;
		free(b);
	}
	free(p->slots);
	free(p);
}

static char *alloc_str(struct fr_strpool *p, size_t len)
{
	struct block *b = p->blocks;
	char *s;

	if (!b || b->size - b->used < len + 1) {
		size_t size = len + 1 > BLOCK_SIZE / 4 ? len + 1 : BLOCK_SIZE;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = size;
		if (size == BLOCK_SIZE || !p->blocks) {
			b->next = p->blocks;
			p->blocks = b;
		} else {   /* a big string: keep the current block in front */
			b->next = p->blocks->next;
			p->blocks->next = b;
		}
	}
	s = b->data + b->used;
	b->used += len + 1;
	return s;
}

static int grow(struct fr_strpool *p)
{
	size_t ncap = p->cap * 2;
	struct slot *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -1;
	for (size_t i = 0; i < p->cap; i++) {
		size_t j;

		if (!p->slots[i].s)
			continue;
		for (j = p->slots[i].hash & (ncap - 1); n[j].s; j = (j + 1) & (ncap - 1))
			;
		n[j] = p->slots[i];
	}
	free(p->slots);
	p->slots = n;
	p->cap = ncap;
	return 0;
}

const char *fr_strpool__intern(struct fr_strpool *p, const char *s, size_t len)
{
	uint32_t h;
	size_t i;
	char *copy;

	if (len > UINT32_MAX)
		return NULL;
	if ((p->used + 1) * 4 > p->cap * 3 && grow(p))
		return NULL;
	h = fnv1a(s, len);
	for (i = h & (p->cap - 1); p->slots[i].s; i = (i + 1) & (p->cap - 1)) {
		const struct slot *sl = &p->slots[i];

		if (sl->hash == h && sl->len == len && !memcmp(sl->s, s, len))
			return sl->s;
	}
	copy = alloc_str(p, len);
	if (!copy)
		return NULL;
	memcpy(copy, s, len);
	copy[len] = '\0';
	p->slots[i] = (struct slot){ copy, h, (uint32_t)len };
	p->used++;
	return copy;
}

const char *fr_strpool__str(struct fr_strpool *p, const char *s)
{
	return fr_strpool__intern(p, s, strlen(s));
}
