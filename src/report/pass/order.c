/* src/report/pass/order.c: the holding queue of order.h: a binary heap by
 * (time, arrival) of fixed-size items, released hold_ns behind the latest
 * time read.
 */
#include "config.h"
#include "src/report/pass/order.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

struct slot {
	uint64_t time, seq;
	unsigned char item[];
};

struct fr_order {
	size_t item_size, slot_size;
	uint64_t hold_ns;
	unsigned char *heap;       /* nr slots of slot_size bytes */
	size_t nr, cap;
	uint64_t seq, seen;        /* items pushed; the latest read time */
	uint64_t out, late;        /* the latest time popped; items popped older than it */
	unsigned char *tmp;        /* one slot */
};

static struct slot *at(const struct fr_order *q, size_t i)
{
	return (struct slot *)(q->heap + i * q->slot_size);
}

static bool before(const struct slot *a, const struct slot *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void swap(struct fr_order *q, size_t i, size_t j)
{
	memcpy(q->tmp, at(q, i), q->slot_size);
	memcpy(at(q, i), at(q, j), q->slot_size);
	memcpy(at(q, j), q->tmp, q->slot_size);
}

int fr_order__new(size_t item_size, uint64_t hold_ns, struct fr_order **out)
{
	struct fr_order *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	q->item_size = item_size;
	q->slot_size = (sizeof(struct slot) + item_size + 7) & ~(size_t)7;
	q->hold_ns = hold_ns;
	if (!(q->tmp = malloc(q->slot_size))) {
		free(q);
		return -ENOMEM;
	}
	*out = q;
	return 0;
}

void fr_order__delete(struct fr_order *q, void (*free_item)(void *item))
{
	if (!q)
		return;
	for (size_t i = 0; free_item && i < q->nr; i++)
		free_item(at(q, i)->item);
	free(q->heap);
	free(q->tmp);
	free(q);
}

int fr_order__push(struct fr_order *q, uint64_t time, uint64_t read_time, const void *item)
{
	size_t i;

	if (fr_grow(&q->heap, &q->cap, q->nr + 1, q->slot_size, 1024))
		return -ENOMEM;
	i = q->nr++;
	at(q, i)->time = time;
	at(q, i)->seq = q->seq++;
	memcpy(at(q, i)->item, item, q->item_size);
	for (; i && before(at(q, i), at(q, (i - 1) / 2)); i = (i - 1) / 2)
		swap(q, i, (i - 1) / 2);
	if (read_time > q->seen)
		q->seen = read_time;
	return 0;
}

int fr_order__pop(struct fr_order *q, bool all, uint64_t *time, void *item)
{
	struct slot *top;
	size_t i = 0, n;

	if (!q->nr)
		return 0;
	top = at(q, 0);
	if (!all && (q->seen < q->hold_ns || top->time > q->seen - q->hold_ns))
		return 0;
	*time = top->time;
	memcpy(item, top->item, q->item_size);
	if (top->time < q->out)
		q->late++;
	else
		q->out = top->time;
	n = --q->nr;
	if (n)
		memcpy(at(q, 0), at(q, n), q->slot_size);
	for (;;) {   /* sift down */
		size_t l = 2 * i + 1, m = i;

		if (l < n && before(at(q, l), at(q, m)))
			m = l;
		if (l + 1 < n && before(at(q, l + 1), at(q, m)))
			m = l + 1;
		if (m == i)
			break;
		swap(q, i, m);
		i = m;
	}
	return 1;
}

uint64_t fr_order__late(const struct fr_order *q)
{
	return q->late;
}
