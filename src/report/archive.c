/* src/report/archive.c: the build-id cache: `flightrec archive` copies the
 * objects a file's samples hit into DIR/.build-id/xx/yyyy (perf's ~/.debug
 * layout), optionally also into a tarball; the report looks there by build id.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "src/util.h"
#include "src/report/pass/pass.h"
#include "src/report/report.h"

extern char **environ;

const char *fr_archive__default_dir(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/flightrec", xdg);
	else if (geteuid() == 0)
		n = snprintf(buf, len, "/var/cache/flightrec");
	else if (home && home[0] == '/')
		n = snprintf(buf, len, "%s/.cache/flightrec", home);
	else
		return NULL;
	return n > 0 && (size_t)n < len ? buf : NULL;
}

struct pass {
	struct fr_resolver *res;
	int err;
};

static int pass_cb(void *ctx, const struct fr_rec *r)
{
	struct pass *p = ctx;
	struct fr_rsample rs;

	if (!r->event)
		return 0;
	if (r->kind == FR_STREAM_SIDEBAND)
		p->err = fr_resolver__sideband(p->res, r);
	else if (r->h->type == PERF_RECORD_SAMPLE && r->sample)
		p->err = fr_resolver__sample(p->res, r, r->sample, true, &rs);
	return p->err ? 1 : 0;
}

/* mkdir -p of path's parent directories. */
static int make_parents(char *path)
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

/* Copy from to to (through a temporary name, so a reader never sees half). */
static int copy_file(const char *from, const char *to)
{
	char tmp[PATH_MAX + 16], buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, err = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	snprintf(tmp, sizeof(tmp), "%s.tmp%ld", to, (long)getpid());
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		err = -errno;
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));

			if (w < 0) {
				err = -errno;
				goto out;
			}
			done += w;
		}
	}
	if (n < 0)
		err = -errno;
out:
	if (out >= 0 && close(out) && !err)
		err = -errno;
	if (!err && rename(tmp, to))
		err = -errno;
	if (err && out >= 0)
		unlink(tmp);
	close(in);
	return err;
}

/* "tar -C dir -cf tar names..." */
static int write_tar(const char *dir, const char *tar, char **names, size_t n)
{
	char **argv = calloc(n + 6, sizeof(*argv));
	int status = 0, err;
	pid_t pid;

	if (!argv)
		return -ENOMEM;
	argv[0] = (char *)"tar";
	argv[1] = (char *)"-C";
	argv[2] = (char *)dir;
	argv[3] = (char *)"-cf";
	argv[4] = (char *)tar;
	if (n)
		memcpy(argv + 5, names, n * sizeof(*names));
	err = posix_spawnp(&pid, "tar", NULL, NULL, argv, environ);
	free(argv);
	if (err)
		return -err;
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

/* Copy each usable object with a build id into the cache; names: their
 * paths relative to dir. */
static int copy_objects(struct fr_symbolizer *sym, const char *dir, char ***names, size_t *nr,
			size_t *copied)
{
	size_t cap = 0;

	for (size_t i = 0; i < fr_symbolizer__nr_dsos(sym); i++) {
		enum fr_dso_status st;
		const char *path, *used;
		const uint8_t *id;
		size_t idn, n;
		char rel[128], full[PATH_MAX];
		struct stat sb;
		int err;

		if (fr_symbolizer__dso_status(sym, i, &path, &st, &used) || st != FR_DSO_OK ||
		    !used || used[0] != '/' || fr_symbolizer__dso_build_id(sym, i, &id, &idn) ||
		    !idn)
			continue;
		n = (size_t)snprintf(rel, sizeof(rel), ".build-id/%02x/", id[0]);
		for (size_t k = 1; k < idn; k++)
			n += (size_t)snprintf(rel + n, sizeof(rel) - n, "%02x", id[k]);
		if ((size_t)snprintf(full, sizeof(full), "%s/%s", dir, rel) >= sizeof(full))
			return -ENAMETOOLONG;
		if (stat(full, &sb)) {
			if ((err = make_parents(full)) || (err = copy_file(used, full))) {
				fr_err(full, "%s", strerror(-err));
				return err;
			}
			++*copied;
		}
		fr_info("%s: %s (%s)", path, rel, used);
		if (fr_grow(names, &cap, *nr + 1, sizeof(**names), 16) ||
		    !((*names)[*nr] = strdup(rel)))
			return -ENOMEM;
		++*nr;
	}
	return 0;
}

/* The local perf maps the report read for JIT frames (the file had none of
 * those pids) into dir/jit/perf-PID.map, where report --symdir DIR looks. */
static int copy_maps(const struct fr_jit *j, const char *dir, char ***names, size_t *nr)
{
	size_t cap = *nr, n = fr_jit__local_maps(j, 0, &(uint32_t){ 0 }, &(const char *){ NULL });

	for (size_t i = 0; i < n; i++) {
		char rel[64], full[PATH_MAX];
		const char *from;
		uint32_t pid;
		int err;

		fr_jit__local_maps(j, i, &pid, &from);
		snprintf(rel, sizeof(rel), "jit/perf-%u.map", pid);
		if ((size_t)snprintf(full, sizeof(full), "%s/%s", dir, rel) >= sizeof(full))
			return -ENAMETOOLONG;
		if (strcmp(from, full)) {
			unlink(full);   /* a map of an earlier pid of that number */
			if ((err = make_parents(full)) || (err = copy_file(from, full))) {
				fr_err(full, "%s", strerror(-err));
				return err;
			}
		}
		fr_info("JIT names of pid %u: %s (%s)", pid, rel, from);
		if (fr_grow(names, &cap, *nr + 1, sizeof(**names), 16) || !((*names)[*nr] = strdup(rel)))
			return -ENOMEM;
		++*nr;
	}
	return 0;
}

int fr_archive__run(const char *path, const char *cache_dir, const char *tar,
		    const struct fr_symbolizer_opts *so)
{
	struct fr_reader *rd = NULL;
	struct pass p = { 0 };
	char **names = NULL;
	size_t nr = 0, copied = 0;
	int ret = fr_input__open(path, &rd), err, walk;

	if (ret)
		return ret;
	ret = FR_EXIT_ERROR;
	err = fr_resolver__new(rd, so, &p.res);
	if (err) {
		fr_err(path, "%s", strerror(-err));
		goto out;
	}
	walk = fr_reader__for_each(rd, pass_cb, &p);
	if (p.err) {
		fr_err(path, "%s", strerror(-p.err));
		goto out;
	}
	if (copy_objects(fr_resolver__symbolizer(p.res), cache_dir, &names, &nr, &copied) ||
	    copy_maps(fr_resolver__jit(p.res), cache_dir, &names, &nr))
		goto out;
	fr_info("%zu objects in %s (%zu copied now)", nr, cache_dir, copied);
	if (tar && nr && (err = write_tar(cache_dir, tar, names, nr))) {
		fr_err(tar, "tar failed: %s", strerror(-err));
		goto out;
	}
	if (tar && !nr)
		fr_err(tar, "no object with a build id to archive; not written");
	ret = nr ? FR_EXIT_OK : FR_EXIT_PARTIAL;
	/* a damaged or truncated file: the objects of the records before the
	 * damage are archived, said as every pass says it (exit 1) */
	if (fr_input__walk_verdict(rd, path, walk, "archived") && !ret)
		ret = FR_EXIT_PARTIAL;
out:
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	fr_resolver__delete(p.res);
	fr_reader__close(rd);
	return ret;
}
