/* symbolize/strpool.c: the string pool (see strpool.h): strings in 64 KiB
 * arena blocks, found again through an fr_hmap of their hashes.
 */
#include "config.h"
#include "symbolize/strpool.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hmap.h"

#define BLOCK_SIZE (64u * 1024u)

struct block {
	struct block *next;
	size_t used, size;
	char data[];
};

struct str {
	const char *s;
	size_t len;
};

struct fr_strpool {
	struct block *blocks;
	struct block *spare;    /* arena blocks emptied by fr_strpool__clear */
	struct str *v;
	size_t nr, cap;
	struct fr_hmap index;   /* bytes -> v[] */
};

struct fr_strpool *fr_strpool__new(void)
{
	struct fr_strpool *p = calloc(1, sizeof(*p));

	if (!p || fr_hmap__reserve(&p->index, 512)) {
		free(p);
		return NULL;
	}
	return p;
}

static void free_blocks(struct block *b)
{
	while (b) {
		struct block *next = b->next;

		free(b);
		b = next;
	}
}

void fr_strpool__delete(struct fr_strpool *p)
{
	if (!p)
		return;
	free_blocks(p->blocks);
	free_blocks(p->spare);
	free(p->v);
	fr_hmap__exit(&p->index);
	free(p);
}

void fr_strpool__clear(struct fr_strpool *p)
{
	while (p->blocks) {
		struct block *b = p->blocks;

		p->blocks = b->next;
		if (b->size == BLOCK_SIZE) {   /* big strings' blocks are not kept */
			/* zeroed: a pointer kept past the clear reads "", not a
			 * string interned later in its place */
			memset(b->data, 0, b->used);
			b->used = 0;
			b->next = p->spare;
			p->spare = b;
		} else {
			free(b);
		}
	}
	p->nr = 0;
	fr_hmap__clear(&p->index);
}

static char *alloc_str(struct fr_strpool *p, size_t len)
{
	struct block *b = p->blocks;
	char *s;

	if (!b || b->size - b->used < len + 1) {
		size_t size = len + 1 > BLOCK_SIZE / 4 ? len + 1 : BLOCK_SIZE;

		if (size == BLOCK_SIZE && p->spare) {
			b = p->spare;
			p->spare = b->next;
		} else if (!(b = malloc(sizeof(*b) + size))) {
			return NULL;
		}
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

const char *fr_strpool__intern(struct fr_strpool *p, const char *s, size_t len)
{
	uint64_t h = fr_hash__bytes(0, s, len);
	struct fr_hmap_it it;
	uint32_t i;
	char *copy;

	for (bool ok = fr_hmap__first(&p->index, h, &it, &i); ok; ok = fr_hmap__next(&p->index, &it, &i))
		if (p->v[i].len == len && !memcmp(p->v[i].s, s, len))
			return p->v[i].s;
	/* on ENOMEM after alloc_str the copy stays unused in the arena */
	if (p->nr >= UINT32_MAX || fr_grow(&p->v, &p->cap, p->nr + 1, sizeof(*p->v), 256) ||
	    !(copy = alloc_str(p, len)) || fr_hmap__add(&p->index, h, (uint32_t)p->nr))
		return NULL;
	memcpy(copy, s, len);
	copy[len] = '\0';
	p->v[p->nr++] = (struct str){ copy, len };
	return copy;
}

const char *fr_strpool__str(struct fr_strpool *p, const char *s)
{
	return fr_strpool__intern(p, s, strlen(s));
}
