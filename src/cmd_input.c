/* src/cmd_input.c: the options of the commands that read a file (report,
 * dump, archive), declared once as argp children: which file (-i, -d) and
 * where its objects are found (--symfs, --symdir, --cache).
 */
#include "config.h"

#include <argp.h>

#include "src/cli.h"
#include "src/report/report.h"

enum { OPT_SYMFS = 900, OPT_SYMDIR, OPT_CACHE };

static const struct argp_option file_options[] = {
	{ "input", 'i', "FILE", 0, "the file (default: the newest *.frec in the directory)", 0 },
	{ "dir", 'd', "DIR", 0, "where to look for the newest file (default .)", 0 },
	{ 0 }
};

static error_t file_parse(int key, char *arg, struct argp_state *st)
{
	struct fr_cli_file *f = st->input;

	switch (key) {
	case 'i': *f->input = arg; break;
	case 'd': *f->dir = arg; break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp fr_cli__file_argp = { file_options, file_parse, NULL, NULL, NULL, NULL, NULL };

/* Group 4: after every command's own options. */
static const struct argp_option symbols_options[] = {
	{ "symfs", OPT_SYMFS, "DIR", 0, "look for recorded files under DIR", 4 },
	{ "symdir", OPT_SYMDIR, "DIR", 0, "also look in DIR for files by name, checked by build id "
	  "(repeatable, at most 16)", 4 },
	{ "cache", OPT_CACHE, "DIR", 0, "the build-id cache that flightrec archive fills (default "
	  "$XDG_CACHE_HOME/flightrec, ~/.cache/flightrec; root: /var/cache/flightrec)", 4 },
	{ 0 }
};

static error_t symbols_parse(int key, char *arg, struct argp_state *st)
{
	struct fr_cli_symbols *s = st->input;

	switch (key) {
	case OPT_SYMFS: s->sym->symfs = arg; break;
	case OPT_SYMDIR:
		if (s->sym->nr_symdirs == FR_REPORT_MAX_SYMDIRS) {
			fr_err("--symdir", "too many directories (at most %d)", FR_REPORT_MAX_SYMDIRS);
			*s->usage_err = 1;
		} else {
			s->symdirs[s->sym->nr_symdirs++] = arg;
			s->sym->symdirs = s->symdirs;
		}
		break;
	case OPT_CACHE: s->sym->cache_dir = arg; break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp fr_cli__symbols_argp = {
	symbols_options, symbols_parse, NULL, NULL, NULL, NULL, NULL
};
