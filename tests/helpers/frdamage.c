/* tests/helpers/frdamage.c: damaged copies of a file for tests/e2e/damage.sh,
 * reproducible from a seed: frdamage IN DIR NR_FLIPS NR_ZEROS CUT_STEP SEED
 * writes DIR/cut-LEN (every CUT_STEP-th length, and every length in the
 * first and last 32 bytes), DIR/flip-OFF-BIT and DIR/zero-OFF-LEN, with
 * "-inert" appended when the damage lies inside one chunk's zstd frame and
 * that frame still decodes to the same payload (bits the zstd decoder
 * ignores: nothing a reader sees has changed), or the bytes were unchanged.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static uint64_t rng;

static uint64_t next(void)  /* xorshift64 */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void put(const char *dir, const char *name, const uint8_t *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(2);
	}
}

/* Damage [off, off + n) of copy (else equal to orig) is inside one frame
 * that decodes to the same bytes. */
static int inert(const uint8_t *orig, const uint8_t *copy, size_t len, size_t off, size_t n)
{
	size_t o = 32;

	if (!memcmp(orig, copy, len))  /* zeroed bytes that were 0 */
		return 1;
	while (o + 32 <= len) {
		uint64_t comp, raw;
		size_t f = o + 32;

		memcpy(&comp, orig + o + 16, 8);
		memcpy(&raw, orig + o + 24, 8);
		if (comp > len - f)
			return 0;
		if (off >= f && off + n <= f + comp) {
			uint8_t *a = malloc(raw + 1), *b = malloc(raw + 1);
			size_t x = ZSTD_decompress(a, raw, orig + f, comp);
			size_t y = ZSTD_decompress(b, raw, copy + f, comp);
			int same = a && b && !ZSTD_isError(x) && !ZSTD_isError(y) && x == y &&
				   !memcmp(a, b, x) && copy[f + 4] == orig[f + 4];

			free(a);
			free(b);
			return same;
		}
		o = f + comp;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t *buf, *copy;
	size_t len, flips, zeros, step;
	char name[64];
	FILE *f;

	if (argc != 7) {
		fprintf(stderr, "usage: frdamage IN DIR NR_FLIPS NR_ZEROS CUT_STEP SEED\n");
		return 64;
	}
	flips = strtoul(argv[3], NULL, 10);
	zeros = strtoul(argv[4], NULL, 10);
	step = strtoul(argv[5], NULL, 10);
	rng = strtoull(argv[6], NULL, 10) | 1;
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (long)(len = (size_t)ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		return 2;
	buf = malloc(len + 1);
	copy = malloc(len + 1);
	if (!buf || !copy || fread(buf, 1, len, f) != len)
		return 2;
	fclose(f);
	for (size_t n = 0; n < len; n++) {
		if (step > 1 && n % step && n > 32 && n + 32 < len)
			continue;
		snprintf(name, sizeof(name), "cut-%zu", n);
		put(argv[2], name, buf, n);
	}
	for (size_t i = 0; i < flips; i++) {
		size_t off = (size_t)(next() % len);
		unsigned bit = (unsigned)(next() % 8);

		memcpy(copy, buf, len);
		copy[off] ^= (uint8_t)(1u << bit);
		snprintf(name, sizeof(name), "flip-%zu-%u%s", off, bit,
			 inert(buf, copy, len, off, 1) ? "-inert" : "");
		put(argv[2], name, copy, len);
	}
	for (size_t i = 0; i < zeros; i++) {
		size_t off = (size_t)(next() % len), n = 1 + (size_t)(next() % 64);

		if (n > len - off)
			n = len - off;
		memcpy(copy, buf, len);
		memset(copy + off, 0, n);
		snprintf(name, sizeof(name), "zero-%zu-%zu%s", off, n,
			 inert(buf, copy, len, off, n) ? "-inert" : "");
		put(argv[2], name, copy, len);
	}
	free(buf);
	free(copy);
	return 0;
}
