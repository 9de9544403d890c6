/* src/record/latency.h: --trigger-latency: each thread's BEGIN -> END pairs
 * matched in time order across the CPUs' trigger rings, and the first one
 * longer than the threshold returned as the trigger (latency.c).
 */
#ifndef FR_RECORD_LATENCY_H
#define FR_RECORD_LATENCY_H

#include <stdbool.h>
#include <stdint.h>

struct fr_latency;

struct fr_latency_hit {
	uint32_t pid, tid, cpu;        /* cpu: where END happened */
	uint64_t begin, end;           /* event clock (CLOCK_MONOTONIC) */
};

int fr_latency__new(uint64_t thresh_ns, struct fr_latency **out);
void fr_latency__delete(struct fr_latency *l);
/* One record of BEGIN (begin true) or END of thread tid, held until a run
 * reaches its time: the CPUs' rings are read one after the other, so a
 * thread's END can be read before its BEGIN from another CPU. 0 or -ENOMEM
 * (the record dropped, and what is open with it: no false pair). */
int fr_latency__add(struct fr_latency *l, bool begin, uint32_t pid, uint32_t tid, uint32_t cpu,
		    uint64_t time);
/* Records were lost: every open BEGIN is dropped (a pair across the hole
 * could match the wrong END) and counted. */
void fr_latency__lost(struct fr_latency *l);
/* Match the held records older than horizon, in time order: a BEGIN opens
 * its thread's pair (a BEGIN older than the thread's last END is a stale
 * one, dropped), an END closes it; an END without a BEGIN (a pair begun
 * before the recording, or lost) is ignored. The first pair longer than the
 * threshold goes to *hit and returns 1, each further one is counted in
 * *more; 0 when none. */
int fr_latency__run(struct fr_latency *l, uint64_t horizon, struct fr_latency_hit *hit,
		    unsigned *more);
/* Pairs matched, BEGINs dropped (lost records, the thread table full). */
void fr_latency__stats(const struct fr_latency *l, uint64_t *pairs, uint64_t *dropped);

#endif
