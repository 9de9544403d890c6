/* tests/helpers/cpuburn.c: a CPU-bound program with a known profile for the
 * report tests: main -> run -> hot_a (two thirds of the work, with an inlined
 * helper) and main -> run -> hot_b (one third). Built twice: cpuburn_fp with
 * frame pointers (-g), cpuburn_nofp without (--call-graph dwarf). DEPTH: first
 * a few ms of hot_b under DEPTH calls of deep (a rare, very deep stack).
 * Usage: cpuburn ROUNDS (about 10 ms each) [DEPTH]
 */
#include <stdio.h>
#include <stdlib.h>

void keep(unsigned long s);
unsigned long hot_a(unsigned long n);
unsigned long hot_b(unsigned long n);
void run(long rounds);
unsigned long deep(long depth);

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
	x ^= x >> 13;
	x *= 0x9e3779b97f4a7c15ul;
	return x ^ (x >> 29);
}

/* Called by the hot functions so they are not leaves: gcc sets up no frame
 * pointer in a leaf even with -fno-omit-frame-pointer, and a frame-pointer
 * callchain would then skip the leaf's caller. */
__attribute__((noinline, noipa)) void keep(unsigned long s)
{
	sink += s;
}

__attribute__((noinline, noipa)) unsigned long hot_a(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++) {
		s += mix(s + i);
		__asm__ volatile("" : "+r"(s));
	}
	keep(s);
	return s;
}

__attribute__((noinline, noipa)) unsigned long hot_b(unsigned long n)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < n; i++) {
		s += mix(s ^ i);
		__asm__ volatile("" : "+r"(s));
	}
	keep(s);
	return s;
}

__attribute__((noinline, noipa)) void run(long rounds)
{
	for (long r = 0; r < rounds; r++) {
		sink += hot_a(2000000);
		sink += hot_b(1000000);
	}
}

__attribute__((noinline, noipa)) unsigned long deep(long depth)
{
	unsigned long r;

	if (!depth)
		return hot_b(1000000);
	r = deep(depth - 1);
	__asm__ volatile("" : "+r"(r));   /* work after the call: each level stays */
	return r + 1;
}

int main(int argc, char **argv)
{
	char *end;
	long rounds = argc > 1 ? strtol(argv[1], &end, 10) : 50, depth = 0;

	if (argc > 1 && (*end || rounds < 0))
		return 2;
	if (argc > 2 && ((depth = strtol(argv[2], &end, 10)) < 0 || depth > 100000 || *end))
		return 2;
	if (depth)
		sink += deep(depth);
	run(rounds);
	printf("%lu\n", sink);
	return 0;
}
