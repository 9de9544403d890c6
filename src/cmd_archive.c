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

struct archive_opts {
	const char *input, *dir, *tar;
	struct fr_symbolizer_opts sym;
	const char *symdirs[FR_REPORT_MAX_SYMDIRS];
	int usage_err;
	struct fr_cli_file file;
	struct fr_cli_symbols symbols;
};

static const struct argp_option archive_options[] = {
	{ "output", 'o', "X.tar", 0, "also write the objects into this tarball (paths "
	  ".build-id/xx/yyyy, for report --symdir after extraction)", 0 },
	{ 0 }
};

static error_t archive_parse(int key, char *arg, struct argp_state *st)
{
	struct archive_opts *o = st->input;

	switch (key) {
	case ARGP_KEY_INIT:
		o->file = (struct fr_cli_file){ &o->input, &o->dir };
		o->symbols = (struct fr_cli_symbols){ &o->sym, o->symdirs, &o->usage_err };
		st->child_inputs[0] = &o->file;
		st->child_inputs[1] = &o->symbols;
		break;
	case 'o': o->tar = arg; break;
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
	static const struct argp_child children[] = {
		{ &fr_cli__file_argp, 0, NULL, 0 }, { &fr_cli__symbols_argp, 0, NULL, 0 }, { 0 }
	};
	struct argp a = { archive_options, archive_parse, "[FILE]", doc, children, NULL, NULL };
	struct archive_opts o = { .dir = "." };
	char path[PATH_MAX] = "", cache[PATH_MAX];
	int r;

	o.sym.no_inline = true;
	o.sym.no_srcline = true;
	r = fr_parse_args(&a, argc, argv, "flightrec archive", &o);
	if (r || o.usage_err)
		return r < 0 ? FR_EXIT_OK : r ? r : FR_EXIT_USAGE;
	if (!o.sym.cache_dir && !(o.sym.cache_dir = fr_archive__default_dir(cache, sizeof(cache)))) {
		fr_err("archive", "no cache directory: set HOME or XDG_CACHE_HOME, or give --cache");
		return FR_EXIT_USAGE;
	}
	/* sym.cache_dir: a second archive of a rebuilt binary finds it there */
	if (fr_input__choose(&o.input, o.dir, path, sizeof(path)))
		return FR_EXIT_ERROR;
	return fr_archive__run(o.input, o.sym.cache_dir, o.tar, &o.sym);
}
