/* tests/fuzz/replay.c: runs a fuzz target's LLVMFuzzerTestOneInput on every
 * file named (directories: every file in them), without libFuzzer, so that
 * `make check` replays the seed corpus and every crash ever found with gcc
 * (and ASan under --enable-sanitizers).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	do {
		if (len == cap) {
			uint8_t *p = realloc(buf, cap ? cap * 2 : 65536);

			if (!p) {
				fclose(f);
				free(buf);
				return 1;
			}
			buf = p;
			cap = cap ? cap * 2 : 65536;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int run_path(const char *path, unsigned *count)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (stat(path, &st)) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		++*count;
		return run_file(path);
	}
	d = opendir(path);
	if (!d)
		return 1;
	while ((de = readdir(d))) {
		char p[4096];

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
		err |= run_path(p, count);
	}
	closedir(d);
	return err;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int err = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++)
		err |= run_path(argv[i], &count);
	fprintf(stderr, "replay: %u inputs, no crash\n", count);
	return err;
}
