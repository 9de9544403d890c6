/* src/file/waitstack.c: the raw data of an offcpu sample: a batch of
 * switches (a 24-byte header, then 16 bytes each, or packed: LEB128 fields),
 * a single switch (24 bytes, files before batches), or a wait's stacks (a
 * 48-byte header with the switch-in's time, or 40 bytes in files before it;
 * 64 kernel frame slots, then nr_user user frames); read with checks, and a
 * batch packed.
 */
#include "config.h"
#include "src/file/waitstack.h"

#include <errno.h>
#include <string.h>

#include "src/util.h"

#define SWITCH_SIZE 24
#define HEAD 40   /* kind 2: kind, flags, off_ns, thresh_ns, tid, pid, nr_kernel, nr_user */
#define HEAD_IN 48   /* kind 5: kind, flags, span_ns, thresh_ns, in_ns, tid, pid, nr_kernel, nr_user */
#define BATCH_HEAD 24   /* kind, nr, padding, first prev_tid and prev_pid, padding, base */
#define BATCH_REC 16    /* dt_state, next_tid, next_pid, delay_ns */
#define DT_MASK ((1u << 30) - 1)
#define PACKED_MAX 20   /* bytes a packed switch takes at most: four 5-byte fields */
#define PID_DIFFERS 1u  /* packed first field: next_pid follows (it is not next_tid) */

enum fr_offcpu_kind fr_offcpu__kind(const void *raw, size_t raw_size)
{
	const uint8_t *p = raw;

	if (!raw || raw_size < SWITCH_SIZE)
		return 0;
	if (p[0] == FR_OFFCPU_SWITCH)
		return FR_OFFCPU_SWITCH;
	if (p[0] == FR_OFFCPU_BATCH)
		return FR_OFFCPU_BATCH;
	if (p[0] == FR_OFFCPU_PACKED)
		return FR_OFFCPU_PACKED;
	if (raw_size >= HEAD && fr_get32(p) == FR_OFFCPU_STACK)
		return FR_OFFCPU_STACK;
	return raw_size >= HEAD_IN && fr_get32(p) == FR_OFFCPU_STACK_IN ? FR_OFFCPU_STACK_IN : 0;
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
	sw->delay_in = 0;
	return 0;
}

/* One LEB128 value of at most 35 bits at *p, before end: 0, or -EBADMSG. */
static int get_uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned shift = 0; shift < 35; shift += 7) {
		uint8_t c;

		if (*p >= end)
			return -EBADMSG;
		c = *(*p)++;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -EBADMSG;
}

static uint8_t *put_uleb(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* A packed switch at *p (advanced past it); its dt is *dt plus the delta. */
static int unpack(const uint8_t **p, const uint8_t *end, uint32_t *dt, struct fr_offcpu_switch *sw)
{
	uint64_t first, tid, pid, delay;

	if (get_uleb(p, end, &first) || get_uleb(p, end, &tid) || tid > UINT32_MAX)
		return -EBADMSG;
	pid = tid;
	if ((first & PID_DIFFERS) && (get_uleb(p, end, &pid) || pid > UINT32_MAX))
		return -EBADMSG;
	if (get_uleb(p, end, &delay) || delay > UINT32_MAX || (first >> 3) > DT_MASK - *dt)
		return -EBADMSG;
	*dt += (uint32_t)(first >> 3);
	sw->state = (enum fr_switch_state)((first >> 1) & 3);
	sw->next_tid = (uint32_t)tid;
	sw->next_pid = (uint32_t)pid;
	sw->delay_ns = (uint32_t)delay;
	return 0;
}

/* A batch as the program writes it, whole: its count, or 0 (another kind,
 * no switches, or fewer bytes than its count says). */
static unsigned int batch_nr(const uint8_t *p, size_t raw_size)
{
	if (fr_offcpu__kind(p, raw_size) != FR_OFFCPU_BATCH ||
	    raw_size < BATCH_HEAD + (size_t)p[1] * BATCH_REC)
		return 0;
	return p[1];
}

int fr_offcpu_batch__parse(const void *raw, size_t raw_size, struct fr_offcpu_batch *b)
{
	const uint8_t *p = raw, *q;
	enum fr_offcpu_kind kind = fr_offcpu__kind(raw, raw_size);
	struct fr_offcpu_switch sw;

	if (kind == FR_OFFCPU_BATCH ? !batch_nr(p, raw_size) : kind != FR_OFFCPU_PACKED || !p[1])
		return -EBADMSG;
	b->nr = p[1];
	b->at = 0;
	b->dt = 0;
	b->packed = kind == FR_OFFCPU_PACKED;
	b->delay_in = (p[3] & FR_BATCH_DELAY_IN) != 0;
	b->prev_tid = fr_get32(p + 4);
	b->prev_pid = fr_get32(p + 8);
	b->base = fr_get64(p + 16);
	b->recs = p + BATCH_HEAD;
	b->end = p + raw_size;
	/* a packed batch is checked whole here, so that next cannot fail */
	q = b->recs;
	for (uint32_t i = 0, dt = 0; b->packed && i < b->nr; i++)
		if (unpack(&q, b->end, &dt, &sw))
			return -EBADMSG;
	return 0;
}

int fr_offcpu_batch__next(struct fr_offcpu_batch *b, struct fr_offcpu_switch *sw,
			  uint64_t *time)
{
	const uint8_t *p;
	uint32_t ds;

	if (b->at >= b->nr)
		return -ENOENT;
	b->at++;
	if (b->packed) {
		if (unpack(&b->recs, b->end, &b->dt, sw))   /* checked by parse */
			return -ENOENT;
		*time = b->base + b->dt;
	} else {
		p = b->recs;
		b->recs += BATCH_REC;
		ds = fr_get32(p);
		*time = b->base + (ds & DT_MASK);
		sw->state = (enum fr_switch_state)(ds >> 30);
		sw->next_tid = fr_get32(p + 4);
		sw->next_pid = fr_get32(p + 8);
		sw->delay_ns = fr_get32(p + 12);
	}
	sw->prev_tid = b->prev_tid;
	sw->prev_pid = b->prev_pid;
	sw->delay_in = b->delay_in;
	b->prev_tid = sw->next_tid;   /* the next switch's prev */
	b->prev_pid = sw->next_pid;
	return 0;
}

int fr_offcpu_batch__pack(const void *raw, size_t raw_size, void *out, size_t cap, size_t *len)
{
	const uint8_t *p = raw;
	uint8_t *o = out, *end;
	unsigned int nr = batch_nr(p, raw_size);
	uint32_t last = 0;

	if (!nr || cap < BATCH_HEAD)
		return -EINVAL;
	memcpy(o, p, BATCH_HEAD);
	o[0] = FR_OFFCPU_PACKED;
	end = o + cap;
	o += BATCH_HEAD;
	for (size_t i = 0; i < nr; i++) {
		const uint8_t *r = p + BATCH_HEAD + i * BATCH_REC;
		uint32_t ds = fr_get32(r), dt = ds & DT_MASK;
		uint32_t tid = fr_get32(r + 4), pid = fr_get32(r + 8);

		if (dt < last || (size_t)(end - o) < PACKED_MAX)
			return -EINVAL;
		o = put_uleb(o, (uint64_t)(dt - last) << 3 | (ds >> 30) << 1 |
				(pid != tid ? PID_DIFFERS : 0));
		o = put_uleb(o, tid);
		if (pid != tid)
			o = put_uleb(o, pid);
		o = put_uleb(o, fr_get32(r + 12));
		last = dt;
	}
	*len = (size_t)(o - (uint8_t *)out);
	return 0;
}

int fr_wait_stack__parse(const void *raw, size_t raw_size, struct fr_wait_stack *w)
{
	const uint8_t *p = raw, *q;
	enum fr_offcpu_kind kind = fr_offcpu__kind(raw, raw_size);
	size_t head = kind == FR_OFFCPU_STACK_IN ? HEAD_IN : HEAD;
	size_t user_at = head + FR_WAIT_FRAMES * 8;

	if ((kind != FR_OFFCPU_STACK && kind != FR_OFFCPU_STACK_IN) || raw_size < user_at)
		return -EBADMSG;
	w->flags = fr_get32(p + 4);
	w->off_ns = fr_get64(p + 8);
	w->thresh_ns = fr_get64(p + 16);
	w->in_ns = kind == FR_OFFCPU_STACK_IN ? fr_get64(p + 24) : 0;
	q = p + head - 16;
	w->tid = fr_get32(q);
	w->pid = fr_get32(q + 4);
	w->nr_kernel = fr_get32(q + 8);
	w->nr_user = fr_get32(q + 12);
	if (!w->tid || w->nr_kernel > FR_WAIT_FRAMES || w->nr_user > FR_WAIT_FRAMES ||
	    raw_size < user_at + (size_t)w->nr_user * 8)
		return -EBADMSG;
	if (!(w->flags & FR_WAIT_USER))
		w->nr_user = 0;
	w->kernel = (const uint64_t *)(p + head);
	w->user = (const uint64_t *)(p + user_at);
	return 0;
}
