/* src/cli.h: what main.c and the command front doors (src/cmd_*.c) share:
 * the entry points, the message printer and argp parsing. Exit codes and
 * fr_err/fr_info themselves are in src/util.h (subsystems use them too).
 */
#ifndef FR_CLI_H
#define FR_CLI_H

#include <stdbool.h>

#include "src/util.h"

/* Status lines (fr_info) are dropped when set (-q). */
extern bool fr_quiet;
/* Install the printer: fr_err → "flightrec: <what>: <why>\n" on stderr,
 * fr_info → "flightrec: <line>\n" unless fr_quiet. */
void fr_cli__init(void);

/* Parse a command's options (argp) with one-line errors. Returns 0 to go on,
 * -1 after --help (exit 0), FR_EXIT_USAGE after an error (already said). */
struct argp;
int fr_parse_args(const struct argp *a, int argc, char **argv, const char *name, void *input);
/* A command's one positional argument (a file, a pattern): a second one is a
 * usage error, said once, *usage_err set. */
void fr_cli__one_arg(const char **slot, char *arg, const char *what, int *usage_err);

/* The options of the commands that read a file (src/cmd_input.c), as argp
 * children: a command lists the ones it takes in its argp's children and
 * points st->child_inputs at these on ARGP_KEY_INIT, in the same order.
 * fr_cli__file_argp: -i FILE, -d DIR. */
struct fr_cli_file {
	const char **input, **dir;
};
extern const struct argp fr_cli__file_argp;
/* fr_cli__symbols_argp: --symfs, --symdir (into symdirs, FR_REPORT_MAX_SYMDIRS
 * slots; sym->symdirs then points there), --cache (sym->cache_dir). Too many
 * --symdir is said once and sets *usage_err. */
struct fr_symbolizer_opts;
struct fr_cli_symbols {
	struct fr_symbolizer_opts *sym;
	const char **symdirs;
	int *usage_err;
};
extern const struct argp fr_cli__symbols_argp;

int cmd_record(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_archive(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_push(int argc, char **argv);

/* ---- what push and record --push share (src/cmd_push.c) ---- */
#define FR_PUSH_MAX_HEADERS 32
struct fr_push_cfg {
	const char *url;
	const char *headers[FR_PUSH_MAX_HEADERS];   /* --header, as given */
	size_t nr_headers;
	const char *header_file;
	bool gzip, original;
	unsigned timeout_s, retries;   /* per request; push: attempts after the first */
	unsigned spool;                /* record --push: snapshots marked at most */
};
enum { FR_PUSH_OPT_HEADER = 1, FR_PUSH_OPT_HEADER_FILE, FR_PUSH_OPT_GZIP, FR_PUSH_OPT_TIMEOUT };
/* One of the options above into c: 0, or -1 (said). */
int cmd_push__option(struct fr_push_cfg *c, int key, const char *arg);
/* A pusher for c (its headers file read): 0 or an exit code (said). */
struct fr_pusher;
int cmd_push__pusher(const struct fr_push_cfg *c, struct fr_pusher **out);
/* record --push: fork the pusher of dir's snapshots (those marked FILE.push,
 * src/record/hook.c); *wfd: its pipe's write end (non-blocking; a byte per
 * snapshot, its end the recorder's), *pid its pid. 0 or an exit code (said). */
int cmd_push__spawn(const struct fr_push_cfg *c, const char *dir, int *wfd, int *pid);

#endif
