/* src/report/pass/order.h: a holding queue that puts records back in the order
 * they happened: items come in the order they are read, each with its own
 * time, and go out by time (then by arrival) once the time read has moved
 * hold_ns past them (order.c).
 */
#ifndef FR_REPORT_ORDER_H
#define FR_REPORT_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fr_order;

/* Items of item_size bytes (copied in and out), held hold_ns. 0 or -ENOMEM. */
int fr_order__new(size_t item_size, uint64_t hold_ns, struct fr_order **out);
/* free_item (or NULL) is called on each item still held. NULL is a no-op. */
void fr_order__delete(struct fr_order *q, void (*free_item)(void *item));
/* Hold item, which happened at time; read_time is the time of the record
 * being read (the latest one read moves the queue on). 0 or -ENOMEM. */
int fr_order__push(struct fr_order *q, uint64_t time, uint64_t read_time, const void *item);
/* The oldest item due (all: any held): 1 with *time and item filled, 0 when
 * none is. */
int fr_order__pop(struct fr_order *q, bool all, uint64_t *time, void *item);
/* Items that went out older than one that went out before them (read more
 * than hold_ns late). */
uint64_t fr_order__late(const struct fr_order *q);

#endif
