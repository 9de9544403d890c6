/* src/cmd_dump.c: `flightrec dump`: its options, then one call:
 * fr_dump__file (src/report/dump.c).
 */
#include "config.h"

#include <argp.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "src/cli.h"
#include "src/report/report.h"

enum { OPT_NO_HEADER = 1000 };

struct dump_opts {
	const char *input, *dir;
	bool no_header;
	int usage_err;
	struct fr_cli_file file;
};

static const struct argp_option dump_options[] = {
	{ "no-header", OPT_NO_HEADER, NULL, 0, "omit the '#' header lines", 0 },
	{ 0 }
};

static error_t dump_parse(int key, char *arg, struct argp_state *st)
{
	struct dump_opts *o = st->input;

	switch (key) {
	case ARGP_KEY_INIT:
		o->file = (struct fr_cli_file){ &o->input, &o->dir };
		st->child_inputs[0] = &o->file;
		break;
	case OPT_NO_HEADER: o->no_header = true; break;
	case ARGP_KEY_ARG: fr_cli__one_arg(&o->input, arg, "file", &o->usage_err); break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	static const char doc[] =
		"List every record of a flightrec file, merged by time:\n"
		"TIME [CPU] PID/TID TYPE COMM DETAILS (see doc/format.md, 'dump output').\n\n"
		"Exit codes: 0 ok; 1 the file is truncated or corrupt (what could be read was "
		"listed); 2 not readable or not a flightrec file; 64 usage.";
	static const struct argp_child children[] = { { &fr_cli__file_argp, 0, NULL, 0 }, { 0 } };
	struct argp a = { dump_options, dump_parse, "[FILE]", doc, children, NULL, NULL };
	struct dump_opts o = { .dir = "." };
	char path[PATH_MAX] = "";
	int r = fr_parse_args(&a, argc, argv, "flightrec dump", &o);

	if (r)
		return r < 0 ? FR_EXIT_OK : r;
	if (o.usage_err)
		return FR_EXIT_USAGE;
	if (fr_input__choose(&o.input, o.dir, path, sizeof(path)))
		return FR_EXIT_ERROR;
	return fr_dump__file(o.input, !o.no_header);
}
