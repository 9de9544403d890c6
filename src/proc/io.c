/* src/proctable_io.c: what the process table learns from /proc at start
 * (comm, ppid, executable mappings, build ids from the ELF files, cached per
 * inode) and the PROCS blob layout (doc/format.md) both ways.
 */
#include "config.h"
#include "src/proc/proctable.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/util.h"

/* ---- build ids ---- */

struct bid_entry {
	dev_t dev;
	ino_t ino;
	int64_t mtime;
	uint8_t size;
	uint8_t id[20];
};

static struct bid_entry *bid_cache;
static size_t bid_nr, bid_cap;

/* The GNU build id note of an ELF file; 0 when it has none or is not ELF. */
uint8_t fr_proctable_read_build_id(const char *path, uint8_t id[20])
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
	if (bid_nr == bid_cap) {
		size_t c = bid_cap ? bid_cap * 2 : 64;
		struct bid_entry *ne = realloc(bid_cache, c * sizeof(*ne));

		if (!ne)
			return (uint8_t)n;
		bid_cache = ne;
		bid_cap = c;
	}
	bid_cache[bid_nr++] = (struct bid_entry){ st.st_dev, st.st_ino, st.st_mtim.tv_sec,
						  (uint8_t)n, { 0 } };
	memcpy(bid_cache[bid_nr - 1].id, id, 20);
	return (uint8_t)n;
}

/* ---- /proc ---- */

static int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = '\0';
	return 0;
}

/* "start-end perms offset dev inode   path" */
static int scan_maps(struct fr_proctable *pt, int pid)
{
	char path[64], line[4608];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;   /* gone, or a kernel thread */
	while (!err && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		char perms[8];
		int n = 0;
		struct fr_pmap m = { 0 };
		char *file;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &n) < 4 ||
		    !n || perms[2] != 'x')
			continue;
		file = line + n;
		file[strcspn(file, "\n")] = '\0';
		if (!*file)
			continue;   /* anonymous executable memory (JIT): nothing to symbolize by */
		m.start = start;
		m.len = end - start;
		m.pgoff = off;
		m.prot = PROT_EXEC | (perms[0] == 'r' ? PROT_READ : 0) |
			 (perms[1] == 'w' ? PROT_WRITE : 0);
		m.path = file;
		m.build_id_size = fr_proctable_read_build_id(file, m.build_id);
		err = fr_proctable__add_map(pt, (uint32_t)pid, &m);
	}
	fclose(f);
	return err;
}

static int scan_pid(struct fr_proctable *pt, int pid)
{
	char path[64], stat[1024], comm[32] = "";
	unsigned ppid = 0;
	char *rp;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_text(path, stat, sizeof(stat)))
		return 0;
	rp = strrchr(stat, ')');
	if (rp && sscanf(rp + 1, " %*c %u", &ppid) != 1)
		ppid = 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (!read_text(path, comm, sizeof(comm)))
		comm[strcspn(comm, "\n")] = '\0';
	err = fr_proctable__add_proc(pt, (uint32_t)pid, ppid, comm);
	return err ? err : scan_maps(pt, pid);
}

int fr_proctable__scan_proc(struct fr_proctable *pt, const int *pids, size_t nr)
{
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (pids) {
		for (size_t i = 0; i < nr && !err; i++)
			err = scan_pid(pt, pids[i]);
		return err;
	}
	d = opendir("/proc");
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid > 0x7fffffff)
			continue;
		err = scan_pid(pt, (int)pid);
	}
	closedir(d);
	return err;
}

/* ---- PROCS payload ----
 * u32 version (1), u32 nr_images, then per image:
 *   u32 pid, u32 ppid, u64 start_time, u64 exit_time, u32 nr_comms, u32 nr_maps,
 *   nr_comms x { u64 time, char comm[16] },
 *   nr_maps x { u64 time, u64 start, u64 len, u64 pgoff, u32 prot, u8 build_id_size,
 *               u8 build_id[20], u8 pad[3], u32 path_len, char path[path_len] }
 */
#define PROCS_VERSION 1u
#define IMG_HDR 32u
#define COMM_SIZE 24u
#define MAP_FIXED_SIZE 68u

static size_t image_size(const struct fr_proc *p)
{
	size_t n = IMG_HDR + p->nr_comms * COMM_SIZE;

	for (size_t i = 0; i < p->nr_maps; i++)
		n += MAP_FIXED_SIZE + strlen(p->maps[i].path);
	return n;
}

static uint8_t *put_image(uint8_t *b, const struct fr_proc *p)
{
	fr_put32(b, p->pid);
	fr_put32(b + 4, p->ppid);
	fr_put64(b + 8, p->start_time);
	fr_put64(b + 16, p->exit_time);
	fr_put32(b + 24, (uint32_t)p->nr_comms);
	fr_put32(b + 28, (uint32_t)p->nr_maps);
	b += IMG_HDR;
	for (size_t i = 0; i < p->nr_comms; i++, b += COMM_SIZE) {
		fr_put64(b, p->comms[i].time);
		memcpy(b + 8, p->comms[i].comm, 16);
	}
	for (size_t i = 0; i < p->nr_maps; i++) {
		const struct fr_pmap *m = &p->maps[i];
		uint32_t len = (uint32_t)strlen(m->path);

		fr_put64(b, m->time);
		fr_put64(b + 8, m->start);
		fr_put64(b + 16, m->len);
		fr_put64(b + 24, m->pgoff);
		fr_put32(b + 32, m->prot);
		b[36] = m->build_id_size;
		memcpy(b + 37, m->build_id, 20);
		memset(b + 57, 0, 3);
		fr_put32(b + 60, len);
		memcpy(b + 64, m->path, len);
		b += MAP_FIXED_SIZE - 4 + len;
	}
	return b;
}

static bool wanted(const struct fr_proc *p, const uint32_t *pids, size_t nr)
{
	if (!pids)
		return true;
	for (size_t i = 0; i < nr; i++)
		if (pids[i] == p->pid)
			return true;
	return false;
}

int fr_proctable__serialize(const struct fr_proctable *pt, const uint32_t *pids, size_t nr,
			    size_t max, int (*cb)(void *ctx, const void *data, size_t len),
			    void *ctx)
{
	uint8_t *buf = malloc(max), *b;
	uint32_t count = 0;
	int err = 0;

	if (!buf || max < 8)
		return buf ? (free(buf), -EINVAL) : -ENOMEM;
	b = buf + 8;
	for (size_t i = 0; !err; i++) {
		const struct fr_proc *p = fr_proctable__get(pt, i);
		size_t need = p ? image_size(p) : 0;

		if (p && !wanted(p, pids, nr))
			continue;
		if (p && need + 8 > max)
			continue;   /* an image larger than a blob: left out */
		if (!p || (size_t)(b - buf) + need > max) {
			if (count) {
				fr_put32(buf, PROCS_VERSION);
				fr_put32(buf + 4, count);
				err = cb(ctx, buf, (size_t)(b - buf));
			}
			count = 0;
			b = buf + 8;
			if (!p)
				break;
		}
		b = put_image(b, p);
		count++;
	}
	free(buf);
	return err;
}

static void tmp_free(struct fr_proc *p)
{
	for (size_t i = 0; i < p->nr_maps; i++)
		free(p->maps[i].path);
	free(p->maps);
	free(p->comms);
}

static int parse_image(struct fr_proctable *pt, const uint8_t **pp, const uint8_t *end)
{
	const uint8_t *b = *pp;
	struct fr_proc p = { 0 };
	uint32_t nc, nm;
	int err = -EBADMSG;

	if (end - b < IMG_HDR)
		return -EBADMSG;
	p.pid = fr_get32(b);
	p.ppid = fr_get32(b + 4);
	p.start_time = fr_get64(b + 8);
	p.exit_time = fr_get64(b + 16);
	nc = fr_get32(b + 24);
	nm = fr_get32(b + 28);
	b += IMG_HDR;
	if (nc > (size_t)(end - b) / COMM_SIZE || nm > (size_t)(end - b) / (MAP_FIXED_SIZE - 4))
		return -EBADMSG;
	p.comms = calloc(nc ? nc : 1, sizeof(*p.comms));
	p.maps = calloc(nm ? nm : 1, sizeof(*p.maps));
	if (!p.comms || !p.maps) {
		err = -ENOMEM;
		goto out;
	}
	for (; p.nr_comms < nc; p.nr_comms++, b += COMM_SIZE) {
		p.comms[p.nr_comms].time = fr_get64(b);
		memcpy(p.comms[p.nr_comms].comm, b + 8, 16);
		p.comms[p.nr_comms].comm[15] = '\0';
	}
	for (; p.nr_maps < nm; p.nr_maps++) {
		struct fr_pmap *m = &p.maps[p.nr_maps];
		uint32_t len;

		if (end - b < (ptrdiff_t)(MAP_FIXED_SIZE - 4))
			goto out;
		len = fr_get32(b + 60);
		if (len > (size_t)(end - b) - (MAP_FIXED_SIZE - 4) || b[36] > 20)
			goto out;
		m->time = fr_get64(b);
		m->start = fr_get64(b + 8);
		m->len = fr_get64(b + 16);
		m->pgoff = fr_get64(b + 24);
		m->prot = fr_get32(b + 32);
		m->build_id_size = b[36];
		memcpy(m->build_id, b + 37, 20);
		m->path = strndup((const char *)b + 64, len);
		if (!m->path) {
			err = -ENOMEM;
			goto out;
		}
		b += MAP_FIXED_SIZE - 4 + len;
	}
	err = fr_proctable__add_image(pt, &p);
	*pp = b;
out:
	tmp_free(&p);
	return err;
}

int fr_proctable__parse(struct fr_proctable *pt, const void *data, size_t len)
{
	const uint8_t *b = data, *end = b + len;
	uint32_t n;

	if (len < 8 || fr_get32(b) != PROCS_VERSION)
		return -EBADMSG;
	n = fr_get32(b + 4);
	b += 8;
	for (uint32_t i = 0; i < n; i++) {
		int err = parse_image(pt, &b, end);

		if (err)
			return err;
	}
	return b == end ? 0 : -EBADMSG;
}
