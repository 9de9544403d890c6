/* src/flightrec.h: what the command-line front end shares: exit codes, the
 * one-line error format, and the subcommand entry points.
 */
#ifndef FR_FLIGHTREC_H
#define FR_FLIGHTREC_H

#include <stdbool.h>

/* Exit codes (doc/exit-codes.md, --help). */
enum {
	FR_EXIT_OK = 0,       /* done */
	FR_EXIT_PARTIAL = 1,  /* done, but something was lost or cut short (said on stderr) */
	FR_EXIT_ERROR = 2,    /* a runtime failure: I/O, no recorder, corrupt file */
	FR_EXIT_DENIED = 3,   /* the kernel or machine refuses: permission, no PMU */
	FR_EXIT_USAGE = 64,   /* bad option, number or event name */
};

/* "flightrec: <what>: <why>\n" on stderr. */
void fr_err(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Status lines ("flightrec: snapshot written: ...") unless quiet. */
extern bool fr_quiet;
void fr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parse a command's options (argp) with one-line errors. Returns 0 to go on,
 * -1 after --help (exit 0), FR_EXIT_USAGE after an error (already said). */
struct argp;
int fr_parse_args(const struct argp *a, int argc, char **argv, const char *name, void *input);

int cmd_record(int argc, char **argv);
int cmd_snapshot(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
