/* src/record/waits_clock.h: the offcpu event's switch times from the
 * scheduler's own clock (rq->clock, updated as each switch begins) put on
 * CLOCK_MONOTONIC by a per-CPU offset; included by waits.bpf.c, and by its
 * unit test, which cannot load the program (doc/design-notes.md "Off-CPU
 * time always on").
 */
#ifndef FR_RECORD_WAITS_CLOCK_H
#define FR_RECORD_WAITS_CLOCK_H

#include <linux/types.h>

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

/* One CPU's: how its rq clock maps onto CLOCK_MONOTONIC. */
struct fr_wclock {
	__s64 off;    /* CLOCK_MONOTONIC - rq clock, as last calibrated */
	__u64 at;     /* the CLOCK_MONOTONIC time the offset was taken; 0: not yet */
	__u64 last;   /* the newest time this CPU gave a switch */
};

/* The offset may rise by 1/1024 of the time since it was taken (~980 ppm:
 * NTP slews CLOCK_MONOTONIC by at most 500 ppm against the TSC). */
#define FR_WCLOCK_DRIFT_SHIFT 10

/* A calibration: kt, CLOCK_MONOTONIC read now, and clk, the rq clock, which
 * may be stale (the scheduler skips its update after a wakeup's preemption:
 * up to ~0.4 ms behind on a loaded VM). The freshest pair has the smallest
 * kt - clk, so the offset follows the minimum; it rises only within the
 * drift the clocks can have. */
static __always_inline void fr_wclock__calibrate(struct fr_wclock *c, __u64 kt, __u64 clk)
{
	__s64 o = (__s64)(kt - clk);

	if (!c->at || o <= c->off + (__s64)((kt - c->at) >> FR_WCLOCK_DRIFT_SHIFT)) {
		c->off = o;
		c->at = kt;
	}
}

/* The CLOCK_MONOTONIC time of a switch at rq clock clk (t: already on
 * CLOCK_MONOTONIC when clk is 0), never before the CPU's last. */
static __always_inline __u64 fr_wclock__time(struct fr_wclock *c, __u64 clk, __u64 t)
{
	if (clk)
		t = clk + (__u64)c->off;
	if (t < c->last)
		t = c->last;
	c->last = t;
	return t;
}

#endif
