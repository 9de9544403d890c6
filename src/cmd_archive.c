/* src/cmd_archive.c: `flightrec archive`: its options, then one call:
 * fr_archive__run (src/report/archive.c).
 */
#include "config.h"

#include <argp.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "src/cli.h"
#include "src/util.h"
#include "src/report/report.h"

enum { OPT_CACHE = 1000, OPT_SYMFS, OPT_SYMDIR };

struct archive_opts {
	const char *input, *dir, *cache, *tar;
	struct fr_symbolizer_opts sym;
	const char *symdirs[FR_REPORT_MAX_SYMDIRS];
	int usage_err;
};

static const struct argp_option archive_options[] = {
	{ "input", 'i', "FILE", 0, "the file (default: the newest *.frec in the directory)", 0 },
	{ "dir", 'd', "DIR", 0, "where to look for the newest file (default .)", 0 },
	{ "cache", OPT_CACHE, "DIR", 0, "the build-id cache (default $XDG_CACHE_HOME/flightrec, "
	  "~/.cache/flightrec; root: /var/cache/flightrec)", 0 },
	{ "output", 'o', "X.tar", 0, "also write the objects into this tarball (paths "
	  ".build-id/xx/yyyy, for report --symdir after extraction)", 0 },
	{ "symfs", OPT_SYMFS, "DIR", 0, "look for recorded files under DIR", 1 },
	{ "symdir", OPT_SYMDIR, "DIR", 0, "also look in DIR for files by name, checked by build id "
	  "(repeatable)", 1 },
	{ 0 }
};

static error_t archive_parse(int key, char *arg, struct argp_state *st)
{
	struct archive_opts *o = st->input;

	switch (key) {
	case 'i': o->input = arg; break;
	case 'd': o->dir = arg; break;
	case 'o': o->tar = arg; break;
	case OPT_CACHE: o->cache = arg; break;
	case OPT_SYMFS: o->sym.symfs = arg; break;
	case OPT_SYMDIR:
		if (o->sym.nr_symdirs == FR_REPORT_MAX_SYMDIRS) {
			fr_err("--symdir", "too many directories (at most 16)");
			o->usage_err = 1;
		} else {
			o->symdirs[o->sym.nr_symdirs++] = arg;
		}
		break;
	case ARGP_KEY_ARG: fr_cli__one_arg(&o->input, arg, "file", &o->usage_err); break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_archive(int argc, char **argv)
{
	static const char doc[] =
		"Copy the objects (executables, libraries) that a file's samples hit into the "
		"build-id cache, as .build-id/xx/yyyy (perf's ~/.debug layout), so that "
		"flightrec report still symbolizes them after they are rebuilt, replaced or "
		"deleted; with -o, also into one tarball for another machine (see "
		"doc/report.md).\v"
		"Examples:\n"
		"  flightrec archive FILE                    fill the cache\n"
		"  flightrec archive FILE -o objs.tar        and write objs.tar\n"
		"  (elsewhere) mkdir objs && tar -C objs -xf objs.tar &&\n"
		"              flightrec report --symdir objs FILE\n\n"
		"Exit codes: 0 ok; 1 no object with a build id to archive; 2 not readable, not "
		"a flightrec file, or an object could not be copied; 64 usage.";
	struct argp a = { archive_options, archive_parse, "[FILE]", doc, NULL, NULL, NULL };
	struct archive_opts o = { .dir = "." };
	char path[PATH_MAX] = "", cache[PATH_MAX];
	int r;

	o.sym.symdirs = o.symdirs;
	o.sym.no_inline = true;
	o.sym.no_srcline = true;
	r = fr_parse_args(&a, argc, argv, "flightrec archive", &o);
	if (r || o.usage_err)
		return r < 0 ? FR_EXIT_OK : r ? r : FR_EXIT_USAGE;
	if (!o.cache && !(o.cache = fr_archive__default_dir(cache, sizeof(cache)))) {
		fr_err("archive", "no cache directory: set HOME or XDG_CACHE_HOME, or give --cache");
		return FR_EXIT_USAGE;
	}
	o.sym.cache_dir = o.cache;   /* a second archive of a rebuilt binary finds it there */
	if (fr_input__choose(&o.input, o.dir, path, sizeof(path)))
		return FR_EXIT_ERROR;
	return fr_archive__run(o.input, o.cache, o.tar, &o.sym);
}
