/* src/main.c: the flightrec command: dispatches to record, snapshot, dump and
 * report, and owns the user-facing message helpers and the run directory.
 */
#include "config.h"
#include "src/flightrec.h"

#include <argp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool fr_quiet;

void fr_err(const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "flightrec: %s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void fr_info(const char *fmt, ...)
{
	va_list ap;

	if (fr_quiet)
		return;
	fputs("flightrec: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const char *parse_name;

/* Parent of every command's argp: passes the input down and turns argp's
 * errors into one line. */
static error_t parent_parse(int key, char *arg, struct argp_state *st)
{
	switch (key) {
	case ARGP_KEY_INIT:
		st->child_inputs[0] = st->input;
		return 0;
	case ARGP_KEY_ERROR:
		fr_err(st->next > 0 && st->next <= st->argc ? st->argv[st->next - 1] : parse_name,
		       "unknown option, or its value is missing (see '%s --help')", parse_name);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

int fr_parse_args(const struct argp *a, int argc, char **argv, const char *name, void *input)
{
	struct argp child = *a;
	struct argp_child children[] = { { &child, 0, NULL, 0 }, { 0 } };
	struct argp parent = { NULL, parent_parse, a->args_doc, a->doc, children, NULL, NULL };

	child.args_doc = NULL;
	child.doc = NULL;

	parse_name = name;
	argv[0] = (char *)name;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strcmp(argv[i], "-?") ||
		    !strcmp(argv[i], "--usage")) {
			argp_help(&parent, stdout, ARGP_HELP_STD_HELP, (char *)name);
			return -1;
		}
	}
	if (argp_parse(&parent, argc, argv, ARGP_NO_ERRS | ARGP_NO_HELP | ARGP_IN_ORDER, NULL,
		       input))
		return FR_EXIT_USAGE;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: flightrec COMMAND [OPTIONS]\n"
		"\n"
		"An always-on flight recorder: keeps the recent past in the kernel's perf\n"
		"ring buffers and writes it out on demand.\n"
		"\n"
		"Commands:\n"
		"  record     record system-wide, a command, or processes (backward rings)\n"
		"  snapshot   ask a running recorder to write its window to a file\n"
		"  dump       list every record of a file\n"
		"  report     symbolized report: histogram, callchains (-g), --folded,\n"
		"             --format=perf-script|json (--raw: every record, as dump)\n"
		"\n"
		"Examples:\n"
		"  flightrec record -e syscalls:sys_enter_read --backward\n"
		"  flightrec record -F 999 -g -- ./server --port 8080\n"
		"  flightrec snapshot            (or: kill -USR2 $(pidof flightrec))\n"
		"  flightrec report -g --sort comm,dso,sym\n"
		"  flightrec report --folded FILE | flamegraph.pl > flame.svg\n"
		"  flightrec dump flightrec-default-*.frec\n"
		"\n"
		"'flightrec COMMAND --help' describes each command.\n"
		"\n"
		"Exit codes: 0 ok; 1 partial (data lost or file cut short, said on stderr);\n"
		"2 runtime error; 3 denied or unsupported by the kernel/machine; 64 usage.\n");
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		usage(stderr);
		return FR_EXIT_USAGE;
	}
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return FR_EXIT_OK;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("flightrec %s\n", PACKAGE_VERSION);
		return FR_EXIT_OK;
	}
	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "snapshot"))
		return cmd_snapshot(argc - 1, argv + 1);
	if (!strcmp(cmd, "dump"))
		return cmd_dump(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	fr_err(cmd, "unknown command (try 'flightrec --help')");
	return FR_EXIT_USAGE;
}
