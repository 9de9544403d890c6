/* src/cli.c: what the command-line front doors share: the printer behind
 * fr_err/fr_info ("flightrec: <what>: <why>" on stderr, status lines unless
 * quiet), and argp parsing with one-line errors.
 */
#include "config.h"
#include "src/cli.h"

#include <argp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "src/util.h"

bool fr_quiet;

static void print_msg(bool info, const char *what, const char *fmt, va_list ap)
{
	char text[1024];

	if (info && fr_quiet)
		return;
	vsnprintf(text, sizeof(text), fmt, ap);
	/* one line, whole: reader threads say things too */
	flockfile(stderr);
	fputs("flightrec: ", stderr);
	/* messages may quote names from a file: one line, whatever they hold */
	if (what) {
		fr_text__put_escaped(stderr, what);
		fputs(": ", stderr);
	}
	fr_text__put_escaped(stderr, text);
	fputc('\n', stderr);
	funlockfile(stderr);
}

void fr_cli__one_arg(const char **slot, char *arg, const char *what, int *usage_err)
{
	if (*slot) {
		fr_err(arg, "one %s at a time", what);
		*usage_err = 1;
	}
	*slot = arg;
}

void fr_cli__init(void)
{
	fr_msg__set_sink(print_msg);
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

