/* src/file/waitstack.c: reading the raw data of an offcpu sample: a batch
 * of switches (a 24-byte header, then 16 bytes each), a single switch (24
 * bytes, files before batches), or a wait's stacks (a 40-byte header, 64
 * kernel frame slots, then nr_user user frames).
 */
#include "config.h"
#include "src/file/waitstack.h"

#include <errno.h>
#include <string.h>

#include "src/util.h"

#define SWITCH_SIZE 24
#define HEAD 40   /* kind, flags, off_ns, thresh_ns, tid, pid, nr_kernel, nr_user */
#define BATCH_HEAD 24   /* kind, nr, padding, first prev_tid and prev_pid, padding, base */
#define BATCH_REC 16    /* dt_state, next_tid, next_pid, delay_ns */
#define DT_MASK ((1u << 30) - 1)

enum fr_offcpu_kind fr_offcpu__kind(const void *raw, size_t raw_size)
{
	const uint8_t *p = raw;

	if (!raw || raw_size < SWITCH_SIZE)
		return 0;
	if (p[0] == FR_OFFCPU_SWITCH)
		return FR_OFFCPU_SWITCH;
	if (p[0] == FR_OFFCPU_BATCH)
		return FR_OFFCPU_BATCH;
	return raw_size >= HEAD && fr_get32(p) == FR_OFFCPU_STACK ? FR_OFFCPU_STACK : 0;
}

int fr_offcpu_switch__parse(const void *raw, size_t raw_size, struct fr_offcpu_switch *sw)
{
	const uint8_t *p = raw;

	if (fr_offcpu__kind(raw, raw_size) != FR_OFFCPU_SWITCH || p[1] > FR_SWITCH_DEAD)
		return -EBADMSG;
	sw->state = (enum fr_switch_state)p[1];
	sw->next_tid = fr_get32(p + 4);
	sw->next_pid = fr_get32(p + 8);
	sw->delay_ns = fr_get32(p + 12);
	sw->prev_tid = fr_get32(p + 16);
	sw->prev_pid = fr_get32(p + 20);
	return 0;
}

int fr_offcpu_batch__parse(const void *raw, size_t raw_size, struct fr_offcpu_batch *b)
{
	const uint8_t *p = raw;

	if (fr_offcpu__kind(raw, raw_size) != FR_OFFCPU_BATCH || !p[1] ||
	    raw_size < BATCH_HEAD + (size_t)p[1] * BATCH_REC)
		return -EBADMSG;
	b->nr = p[1];
	b->at = 0;
	b->prev_tid = fr_get32(p + 4);
	b->prev_pid = fr_get32(p + 8);
	b->base = fr_get64(p + 16);
	b->recs = p + BATCH_HEAD;
	return 0;
}

int fr_offcpu_batch__next(struct fr_offcpu_batch *b, struct fr_offcpu_switch *sw,
			  uint64_t *time)
{
	const uint8_t *p;
	uint32_t ds;

	if (b->at >= b->nr)
		return -ENOENT;
	p = b->recs + (size_t)b->at++ * BATCH_REC;
	ds = fr_get32(p);
	*time = b->base + (ds & DT_MASK);
	sw->state = (enum fr_switch_state)(ds >> 30);
	sw->prev_tid = b->prev_tid;
	sw->prev_pid = b->prev_pid;
	sw->next_tid = fr_get32(p + 4);
	sw->next_pid = fr_get32(p + 8);
	sw->delay_ns = fr_get32(p + 12);
	b->prev_tid = sw->next_tid;   /* the next switch's prev */
	b->prev_pid = sw->next_pid;
	return 0;
}

int fr_wait_stack__parse(const void *raw, size_t raw_size, struct fr_wait_stack *w)
{
	const uint8_t *p = raw;
	size_t user_at = HEAD + FR_WAIT_FRAMES * 8;

	if (fr_offcpu__kind(raw, raw_size) != FR_OFFCPU_STACK || raw_size < user_at)
		return -EBADMSG;
	w->flags = fr_get32(p + 4);
	w->off_ns = fr_get64(p + 8);
	w->thresh_ns = fr_get64(p + 16);
	w->tid = fr_get32(p + 24);
	w->pid = fr_get32(p + 28);
	w->nr_kernel = fr_get32(p + 32);
	w->nr_user = fr_get32(p + 36);
	if (!w->tid || w->nr_kernel > FR_WAIT_FRAMES || w->nr_user > FR_WAIT_FRAMES ||
	    raw_size < user_at + (size_t)w->nr_user * 8)
		return -EBADMSG;
	if (!(w->flags & FR_WAIT_USER))
		w->nr_user = 0;
	w->kernel = (const uint64_t *)(p + HEAD);
	w->user = (const uint64_t *)(p + user_at);
	return 0;
}
