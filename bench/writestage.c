/* bench/writestage.c: what a --keep snapshot's write costs, by how its chunks
 * reach write(2): 2,400 separate ~20 KiB buffers (a 48 MiB window) written one
 * by one, or copied into one 1 MiB buffer first (src/file/write.c's stage).
 * Usage: writestage direct|staged DIR [CHUNKS] [SIZE]
 * Prints, per snapshot (3 into new files, same buffers): write and fsync ms.
 * Run each mode in a fresh process, interleaved (the first write is the point).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STAGE (1u << 20)

static char **chunks;
static size_t nchunks = 2400, size = 20000;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int parse(const char *s, size_t lo, size_t hi, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = (size_t)v;
	return 0;
}

/* As the recorder's readers do: each chunk allocated and filled by another
 * thread, the window recycled (freed and allocated again) a few times. */
static void *fill(void *arg)
{
	char *buf = malloc(size);

	if (!buf)
		return NULL;
	memset(buf, 7, size);
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < nchunks; i++) {
			free(chunks[i]);
			chunks[i] = malloc(size);
			if (!chunks[i])
				abort();
			memcpy(chunks[i], buf, size);
			buf[i % size]++;
		}
	free(buf);
	return arg;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int staged;
	char *stage;
	pthread_t t;

	if (argc < 3 || (strcmp(argv[1], "direct") && strcmp(argv[1], "staged")) ||
	    (argc > 3 && parse(argv[3], 1, 1u << 20, &nchunks)) ||
	    (argc > 4 && parse(argv[4], 64, STAGE, &size))) {
		fprintf(stderr, "usage: writestage direct|staged DIR [CHUNKS] [SIZE]\n");
		return 64;
	}
	staged = !strcmp(argv[1], "staged");
	chunks = calloc(nchunks, sizeof(*chunks));
	stage = malloc(STAGE);
	if (!chunks || !stage || pthread_create(&t, NULL, fill, NULL) || pthread_join(t, NULL))
		return 1;
	for (int s = 0; s < 3; s++) {
		char path[4096];
		double t0, t1, t2;
		size_t fill_len = 0;
		int fd, err = 0;

		snprintf(path, sizeof(path), "%s/writestage.%d.%d", argv[2], (int)getpid(), s);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd < 0) {
			fprintf(stderr, "writestage: %s: %s\n", path, strerror(errno));
			return 1;
		}
		t0 = now_ms();
		for (size_t i = 0; i < nchunks && !err; i++) {
			if (!staged) {
				err = write_all(fd, chunks[i], size);
				continue;
			}
			if (fill_len + size > STAGE) {
				err = write_all(fd, stage, fill_len);
				fill_len = 0;
			}
			memcpy(stage + fill_len, chunks[i], size);
			fill_len += size;
		}
		if (!err && fill_len)
			err = write_all(fd, stage, fill_len);
		t1 = now_ms();
		if (err || fsync(fd) || close(fd)) {
			fprintf(stderr, "writestage: %s: %s\n", path, strerror(errno));
			unlink(path);
			return 1;
		}
		t2 = now_ms();
		unlink(path);
		printf("%s snapshot %d: write %.1f ms, fsync %.1f ms\n", argv[1], s + 1, t1 - t0,
		       t2 - t1);
	}
	return 0;
}
