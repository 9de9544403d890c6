/* symbolize/debugcache.c: separate debuginfo, kept decompressed in the
 * build-id cache (CACHE/.build-id/xx/yyyy.debug): distributions compress
 * .debug_* sections, and libdw inflates them whole on every report.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "symbolize/internal.h"

/* a cache entry larger than this once decompressed is not written */
#define DEBUGCACHE_MAX (1ull << 30)

int fr_debugcache__path(char *path, size_t len, const char *cache, const unsigned char *id, int n,
			const char *suffix)
{
	size_t k = (size_t)snprintf(path, len, "%s/.build-id/%02x/", cache, id[0]);

	for (int i = 1; i < n && k < len; i++)
		k += (size_t)snprintf(path + k, len - k, "%02x", id[i]);
	if (k < len)
		k += (size_t)snprintf(path + k, len - k, "%s", suffix);
	return k < len ? 0 : -ENAMETOOLONG;
}

/* CACHE/.build-id/xx/yyyy.debug: 0 or -ENAMETOOLONG */
static int entry_path(char *path, size_t len, const char *cache, const unsigned char *id, int n)
{
	return fr_debugcache__path(path, len, cache, id, n, ".debug");
}

int fr_debugcache__open_trusted(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || (st->st_mode & 022) ||
	    (st->st_uid != geteuid() && st->st_uid != 0)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Ours to trust (fr_debugcache__open_trusted), and its build id is id. The
 * fd, or -errno. */
static int open_entry(const char *path, const unsigned char *id, int n)
{
	const void *bits;
	struct stat st;
	int fd = fr_debugcache__open_trusted(path, &st);
	Elf *elf;
	bool ok;

	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ok = elf && dwelf_elf_gnu_build_id(elf, &bits) == n && !memcmp(bits, id, (size_t)n);
	elf_end(elf);
	if (!ok) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* Any SHF_COMPRESSED section? */
static bool has_compressed(Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED))
			return true;
	}
	return false;
}

int fr_debugcache__mkdirs(char *path)   /* every parent of path; path is restored */
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			int err = -errno;

			*p = '/';
			return err;
		}
		*p = '/';
	}
	return 0;
}

/* Copy src into fd section by section, each compressed one decompressed
 * (libelf lays the file out again; the program headers are kept as they
 * are: a debuginfo file's describe the main file). */
static int copy_decompressed(Elf *src, int fd)
{
	Elf *dst = elf_begin(fd, ELF_C_WRITE, NULL);
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t nph = 0, total = 0;
	int err = -EBADMSG;

	if (!dst || !gelf_getehdr(src, &eh) || elf_getphdrnum(src, &nph) ||
	    !gelf_newehdr(dst, gelf_getclass(src)) || !gelf_update_ehdr(dst, &eh))
		goto out;
	if (nph) {
		if (!gelf_newphdr(dst, nph))
			goto out;
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(src, (int)i, &ph) || !gelf_update_phdr(dst, (int)i, &ph))
				goto out;
		}
	}
	while ((scn = elf_nextscn(src, scn))) {
		Elf_Scn *out = elf_newscn(dst);
		Elf_Data *in = elf_getdata(scn, NULL), *od;
		GElf_Shdr sh;

		if (!out || !gelf_getshdr(scn, &sh) || !gelf_update_shdr(out, &sh))
			goto out;
		if (in && (od = elf_newdata(out))) {
			*od = *in;
		} else if (in) {
			goto out;
		}
		if ((sh.sh_flags & SHF_COMPRESSED) && sh.sh_type != SHT_NOBITS) {
			if (elf_compress(out, 0, 0) < 0)
				goto out;
			if (gelf_getshdr(out, &sh))
				total += sh.sh_size;
			if (total > DEBUGCACHE_MAX) {
				err = -EFBIG;
				goto out;
			}
		}
	}
	err = elf_update(dst, ELF_C_WRITE) < 0 ? -EIO : 0;
out:
	elf_end(dst);
	return err;
}

/* Write path (atomically: a temp file renamed) from the debuginfo file fd. */
static int write_entry(char *path, int fd)
{
	char tmp[PATH_MAX];
	Elf *src;
	int out, err;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	if ((err = fr_debugcache__mkdirs(path)))
		return err;
	out = mkstemp(tmp);
	if (out < 0)
		return -errno;
	src = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = src ? copy_decompressed(src, out) : -EBADMSG;
	elf_end(src);
	if (!err && fchmod(out, 0644))
		err = -errno;
	if (close(out) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

/* libdw's search path when Dwfl_Callbacks.debuginfo_path is NULL (dso.c) */
#define DEBUGINFO_PATH ":.debug:/usr/lib/debug"

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Could dwfl_standard_find_debuginfo find anything on this machine? It looks
 * for /usr/lib/debug/.build-id/xx/yyyy.debug, then for the debuglink name
 * (FILE.debug without one) beside the file, in its .debug/ and under
 * /usr/lib/debug/DIR/; failing all, libdw 0.188 dlopens libdebuginfod (and
 * libcurl, gnutls, krb5, ldap...: 40-60 ms, once per report, for every
 * stripped binary without debuginfo) to ask servers that are only asked when
 * DEBUGINFOD_URLS names some. So ask libdw only where one of those files
 * exists or a server is configured; the answer is the same, sooner. */
static bool worth_searching(const unsigned char *id, int n, const char *file_name,
			    const char *debuglink)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char path[PATH_MAX], dir[PATH_MAX], name[NAME_MAX + 1];
	const char *base, *slash;

	if (urls && urls[0])
		return true;
	if (n > 0 && !entry_path(path, sizeof(path), "/usr/lib/debug", id, n) && exists(path))
		return true;
	if (!file_name)
		return false;
	slash = strrchr(file_name, '/');
	base = slash ? slash + 1 : file_name;
	if (slash && (size_t)(slash - file_name) >= sizeof(dir))
		return true;   /* too long to check here: let libdw look */
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file_name) : 1,
		 slash ? file_name : ".");
	if (debuglink && debuglink[0] == '/')
		return exists(debuglink);
	if ((size_t)snprintf(name, sizeof(name), "%s%s", debuglink ? debuglink : base,
			     debuglink ? "" : ".debug") >= sizeof(name))
		return true;
	for (const char *p = DEBUGINFO_PATH; ; ) {
		const char *end = strchr(p, ':');
		int len = end ? (int)(end - p) : (int)strlen(p);
		size_t k;

		if (len == 0)
			k = (size_t)snprintf(path, sizeof(path), "%s/%s", dir, name);
		else if (p[0] == '/')
			k = (size_t)snprintf(path, sizeof(path), "%.*s%s/%s", len, p, dir, name);
		else
			k = (size_t)snprintf(path, sizeof(path), "%s/%.*s/%s", dir, len, p, name);
		if (k >= sizeof(path) || exists(path))
			return true;
		if (!end)
			return false;
		p = end + 1;
	}
}

int fr_debugcache__find(Dwfl_Module *mod, void **userdata, const char *modname,
			Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const char *cache = *userdata;
	const unsigned char *id;
	char path[PATH_MAX];
	GElf_Addr vaddr;
	Elf *elf;
	bool compressed;
	int idlen = dwfl_module_build_id(mod, &id, &vaddr);
	int n = cache ? idlen : 0;
	int fd;

	if (n > 0 && entry_path(path, sizeof(path), cache, id, n))
		n = 0;
	if (n > 0 && (fd = open_entry(path, id, n)) >= 0) {
		*debuginfo_file_name = strdup(path);
		return fd;
	}
	if (!worth_searching(id, idlen, file_name, debuglink_file))
		return -1;
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					  debuglink_file, debuglink_crc, debuginfo_file_name);
	if (fd < 0 || n <= 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	compressed = elf && has_compressed(elf);
	elf_end(elf);
	if (compressed && !write_entry(path, fd)) {
		int cached = open_entry(path, id, n);

		if (cached >= 0) {   /* this report reads the decompressed copy too */
			char *name = strdup(path);

			if (name) {
				close(fd);
				free(*debuginfo_file_name);
				*debuginfo_file_name = name;
				return cached;
			}
			close(cached);
		}
	}
	return fd;
}
