/* tests/helpers/cpuburn.c: a CPU-bound program with a known profile for the
 * report tests: main -> run -> hot_a (two thirds of the work, with an inlined
 * helper) and main -> run -> hot_b (one third). Built twice: cpuburn_fp with
 * frame pointers (-g), cpuburn_nofp without (--call-graph dwarf).
 * Usage: cpuburn ROUNDS (about 10 ms each)
 */
#include <stdio.h>
#include <stdlib.h>

void keep(unsigned long s);
unsigned long hot_a(unsigned long n);
unsigned long hot_b(unsigned long n);
void run(long rounds);

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

int main(int argc, char **argv)
{
	char *end;
	long rounds = argc > 1 ? strtol(argv[1], &end, 10) : 50;

	if (argc > 1 && (*end || rounds < 0))
		return 2;
	run(rounds);
	printf("%lu\n", sink);
	return 0;
}
