/* src/proc/buildid.c: the GNU build id note of an ELF file, read with
 * libelf/libdwelf and cached per inode and mtime (mappings of one file are
 * reported many times); the recorder's policy for the process model.
 */
#include "config.h"
#include "src/proc/proctable.h"

#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/util.h"

struct bid_entry {
	dev_t dev;
	ino_t ino;
	int64_t mtime;
	uint8_t size;
	uint8_t id[20];
};

static struct bid_entry *bid_cache;
static size_t bid_nr, bid_cap;

uint8_t fr_buildid__read_pid(uint32_t pid, const char *path, uint8_t id[20])
{
	char in_ns[4352];
	uint8_t n = 0;

	/* a containerized process maps files of its own mount namespace */
	if (pid && path[0] == '/' &&
	    (size_t)snprintf(in_ns, sizeof(in_ns), "/proc/%u/root%s", pid, path) < sizeof(in_ns))
		n = fr_buildid__read(in_ns, id);
	return n ? n : fr_buildid__read(path, id);
}

/* The GNU build id note of an ELF file; 0 when it has none or is not ELF. */
uint8_t fr_buildid__read(const char *path, uint8_t id[20])
{
	struct stat st;
	const void *p = NULL;
	ssize_t n = 0;
	Elf *elf;
	int fd;

	if (path[0] != '/' || stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	for (size_t i = 0; i < bid_nr; i++) {
		struct bid_entry *e = &bid_cache[i];

		if (e->dev == st.st_dev && e->ino == st.st_ino && e->mtime == st.st_mtim.tv_sec) {
			memcpy(id, e->id, 20);
			return e->size;
		}
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	memset(id, 0, 20);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		n = dwelf_elf_gnu_build_id(elf, &p);
		if (n <= 0 || !p)
			n = 0;
		if (n > 20)
			n = 20;
		if (n)
			memcpy(id, p, (size_t)n);   /* p points into elf's mapping */
		elf_end(elf);
	}
	close(fd);
	if (fr_grow(&bid_cache, &bid_cap, bid_nr + 1, sizeof(*bid_cache), 64))
		return (uint8_t)n;
	bid_cache[bid_nr++] = (struct bid_entry){ st.st_dev, st.st_ino, st.st_mtim.tv_sec,
						  (uint8_t)n, { 0 } };
	memcpy(bid_cache[bid_nr - 1].id, id, 20);
	return (uint8_t)n;
}

const struct fr_proctable_policy fr_proctable__recorder_policy = {
	/* threads too: their names are what a window's reader looks for first,
	 * and in backward mode their renames are in the overwritten rings */
	/* a process renaming itself or mapping code without end keeps only its
	 * newest history: older entries predate any window a snapshot can still
	 * hold (the renames and mappings of one image between two snapshots) */
	.max_comms = 4096,
	.max_maps = 65536,
	.read_build_id = fr_buildid__read_pid,
};
