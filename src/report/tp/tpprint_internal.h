/* src/report/tp/tpprint_internal.h: the compiled form of a print fmt, shared by
 * its compiler (tpprint_parse.c) and its evaluator (tpprint.c).
 */
#ifndef FR_TPPRINT_INTERNAL_H
#define FR_TPPRINT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/report/tp/tpprint.h"

enum kind {
	K_NUM,      /* v */
	K_FIELD,    /* size bytes at off, unsigned */
	K_STR,      /* a string literal: s (NUL-terminated in the pool) */
	K_ARRAY,    /* a char array of size bytes at off, as a string */
	K_GETSTR,   /* __get_str: the string a __data_loc (__rel_loc) word at off names */
	K_CAST,     /* a & v */
	K_NEG, K_NOT, K_INV,
	K_BIN,      /* a op b */
	K_COND,     /* a ? b : c */
	K_SYM,      /* __print_symbolic(a, pairs [s, s + n)) */
	K_FLAGS,    /* __print_flags(a, delimiter d, pairs [s, s + n)) */
};

struct node {
	uint8_t kind, depth;
	char op[3];
	bool is_str, relative;
	int32_t a, b, c;
	uint64_t v;
	uint32_t off, size;
	uint32_t s, n, d;
};

struct pair {
	int64_t v;      /* -1: a value libtraceevent does not know (it never matches a flag) */
	uint32_t s;     /* the string, in the pool */
};

struct piece {
	uint32_t s, n;      /* literal text in the pool; n == 0: a conversion */
	int32_t node;
	int8_t ls;          /* length: -2 hh, -1 h, 0, 1 l/z/p, 2 ll/L */
	char conv;
	char spec[24];
};

struct fr_tpprint {
	char *pool;         /* the print fmt, string literals NUL-terminated */
	struct node *nodes;
	size_t nr_nodes, cap_nodes;
	struct pair *pairs;
	size_t nr_pairs, cap_pairs;
	struct piece *pieces;
	size_t nr_pieces, cap_pieces;
};

/* Compile p->pool (len bytes) against f's fields into p: 0, -EOPNOTSUPP
 * (*why says what), -ENOMEM. */
int fr_tpprint__compile(struct fr_tpprint *p, const struct fr_tpformat *f, size_t len,
			const char **why);
/* The value of the expression at node i without a record (a flag's value):
 * false when it reads a field or divides by zero. */
bool fr_tpprint__fold(const struct fr_tpprint *p, int i, uint64_t *v);

#endif
