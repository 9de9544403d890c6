/* src/report/tp/tpformat.h: the strict grammar of a tracepoint `format` text
 * read from a file (hostile), and the canonical text composed from what it
 * accepts: the only format text libtraceevent is given (tpdecode.c).
 */
#ifndef FR_TPFORMAT_H
#define FR_TPFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FR_TPFORMAT_MAX (64u << 10)  /* bytes of format text */
#define FR_TPFIELDS_MAX 256          /* fields of one event */
#define FR_TPRECORD_MAX 65535u       /* a perf record's size is a u16 */

struct fr_tpfield {
	char name[64];
	char type[96];          /* "unsigned int", "char", "char *"; "__data_loc char[]" */
	char conv[24];          /* the print fmt's conversion of REC->name ("%d"), or "" */
	char casts[96];         /* its casts, outermost first ("(unsigned long)"), or "" */
	uint32_t offset, size;
	uint32_t array_len;     /* [N]: N; [] or not an array: 0 */
	bool is_signed, common, array, dynamic, relative, hex_prefix;
};

struct fr_tpformat {
	char name[128];
	uint64_t id;
	struct fr_tpfield *fields;   /* common fields first, then the event's own */
	size_t nr_fields, nr_common, cap;
	char why[160];               /* the first thing refused, "" when nothing was */
	size_t print_off, print_len; /* the print fmt's text (after "print fmt: ") in the text parsed */
};

/* Parse text (len bytes, not NUL-terminated). 0: every line accepted;
 * -EBADMSG: a field line or the print fmt refused (why says which: the fields
 * that were accepted are kept, the print fmt is not used); -EINVAL: nothing
 * usable (no header, no field); -ENOMEM. fr_tpformat__exit in every case. */
int fr_tpformat__parse(struct fr_tpformat *f, const char *text, size_t len);
void fr_tpformat__exit(struct fr_tpformat *f);
/* The canonical format text of f (NUL-terminated, malloc'd): the accepted
 * fields, and a print fmt holding only the accepted REC->field conversions
 * (the only part of a print fmt the field printing uses); NULL on -ENOMEM. */
char *fr_tpformat__compose(const struct fr_tpformat *f);

/* The tokens of a print fmt (shared with tpprint.c, which evaluates it):
 * a string or character literal with its quotes, a number with its
 * suffixes, an identifier, "REC->name", an operator or bracket. */
enum fr_tptok { FR_TP_END, FR_TP_STR, FR_TP_CHR, FR_TP_NUM, FR_TP_IDENT, FR_TP_REC, FR_TP_PUNCT,
		FR_TP_BAD };

struct fr_tplex {
	const char *p, *end;    /* what is left to read */
	const char *s;          /* the token */
	size_t n;
};

enum fr_tptok fr_tplex__next(struct fr_tplex *x);

#endif
