/* src/report/tp/tpprint.h: a tracepoint's print fmt compiled by a strict
 * grammar (the conversions, expressions and helpers the common tracepoints use)
 * and evaluated on a record's bytes to the text `perf script` prints for it.
 */
#ifndef FR_TPPRINT_H
#define FR_TPPRINT_H

#include <stddef.h>

#include "src/report/tp/tpformat.h"

#define FR_TPPRINT_NODES_MAX 4096   /* values and operators of one print fmt */
#define FR_TPPRINT_DEPTH_MAX 48     /* nesting of an expression */
#define FR_TPPRINT_WIDTH_MAX 64     /* a conversion's width or precision */

struct fr_tpprint;

/* Compile the print fmt text (len bytes: what follows "print fmt: ") of f.
 * 0; -EOPNOTSUPP: outside the grammar (why says what, if given; the caller
 * prints the fields as name=value); -ENOMEM. Nothing of f is kept. */
int fr_tpprint__new(struct fr_tpprint **out, const struct fr_tpformat *f, const char *text,
		    size_t len, char *why, size_t why_len);
void fr_tpprint__delete(struct fr_tpprint *p);
/* The text of raw (size bytes) into buf (NUL-terminated): 0; -EBADMSG when a
 * value it needs lies outside raw (a field, a string without its end) or a
 * division by zero; -ENOSPC when the text was cut to len. Control bytes of
 * strings are written as '_'. */
int fr_tpprint__eval(const struct fr_tpprint *p, const void *raw, size_t size, char *buf,
		     size_t len);

#endif
