/* symbolize/unwind.h: user stacks recorded with --call-graph dwarf (the user
 * registers and a copy of the stack at the sample) unwound with libunwind's
 * remote API: memory reads come from the copied stack and from the mapped
 * files' images, unwind tables from their .eh_frame_hdr.
 * Library code: returns 0 or -errno, never prints, never exits.
 */
#ifndef FR_UNWIND_H
#define FR_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "symbolize/addrspace.h"
#include "symbolize/symbolize.h"

struct fr_unwind;

/* One sample's user state (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER). */
struct fr_ustack {
	const uint64_t *regs;   /* perf's register order, only the bits of mask */
	uint64_t mask;          /* attr.sample_regs_user */
	uint64_t abi;           /* PERF_SAMPLE_REGS_ABI_*; 0: no user registers */
	const void *stack;      /* bytes from the sampled stack pointer up */
	uint64_t size;          /* valid bytes (the dynamic size when recorded) */
};

/* Files are read through s; one unwinder serves one address space. */
int fr_unwind__new(struct fr_symbolizer *s, struct fr_unwind **out);
void fr_unwind__delete(struct fr_unwind *u);

/* The user call stack of process pid at time: ips[0] is the sampled
 * instruction pointer, the rest return addresses, outward. Stops at max, at
 * the end of the copied stack, or at an address outside every mapping.
 * Returns the number of addresses (0: no user registers) or -errno
 * (-ENOTSUP: registers of another architecture). */
int fr_unwind__user(struct fr_unwind *u, const struct fr_addrspace *as, uint32_t pid, uint64_t time,
		    const struct fr_ustack *st, uint64_t *ips, size_t max);

#endif
