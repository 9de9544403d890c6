/* src/report/tp/tpprint_parse.c: the strict grammar of a print fmt (printf
 * conversions, REC->field, casts, C's operators and ?:, __get_str,
 * __print_symbolic, __print_flags with constant values), compiled into the
 * tree tpprint.c evaluates; bounded in nodes and nesting.
 */
#include "config.h"
#include "src/report/tp/tpprint_internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/util.h"

struct comp {
	struct fr_tpprint *p;
	const struct fr_tpformat *f;
	struct fr_tplex x;
	enum fr_tptok t;
	int depth;
	bool in_pair;       /* a flag's value: libtraceevent folds only some operators */
	bool nomem;
	const char *why;
};

static void adv(struct comp *c)
{
	c->t = fr_tplex__next(&c->x);
}

static bool is(const struct comp *c, const char *punct)
{
	return c->t == FR_TP_PUNCT && c->x.n == strlen(punct) && !memcmp(c->x.s, punct, c->x.n);
}

static int fail(struct comp *c, const char *why)
{
	if (!c->why)
		c->why = why;
	return -1;
}

static bool expect(struct comp *c, const char *punct)
{
	if (!is(c, punct)) {
		fail(c, "unexpected token");
		return false;
	}
	adv(c);
	return true;
}

static int node(struct comp *c, enum kind k, int a, int b, int cc)
{
	struct fr_tpprint *p = c->p;
	struct node *nd;
	int depth = 0, kids[3] = { a, b, cc };

	if (a < 0 && (k != K_NUM && k != K_FIELD && k != K_STR && k != K_ARRAY && k != K_GETSTR))
		return -1;   /* a child failed (why is set) */
	if (p->nr_nodes >= FR_TPPRINT_NODES_MAX)
		return fail(c, "too many values");
	if (fr_grow(&p->nodes, &p->cap_nodes, p->nr_nodes + 1, sizeof(*p->nodes), 32)) {
		c->nomem = true;
		return fail(c, "out of memory");
	}
	for (int i = 0; i < 3; i++)
		if (kids[i] >= 0 && p->nodes[kids[i]].depth > depth)
			depth = p->nodes[kids[i]].depth;
	if (depth >= FR_TPPRINT_DEPTH_MAX)
		return fail(c, "expression nested too deep");
	nd = &p->nodes[p->nr_nodes];
	memset(nd, 0, sizeof(*nd));
	nd->kind = (uint8_t)k;
	nd->depth = (uint8_t)(depth + 1);
	nd->a = a;
	nd->b = b;
	nd->c = cc;
	return (int)p->nr_nodes++;
}

/* A number token as strtoull(s, NULL, 0) reads it: 0x hex, 0 octal, else
 * decimal; u/l suffixes. Refused when it does not fit 64 bits. */
static int number(struct comp *c, uint64_t *out)
{
	const char *s = c->x.s, *e = c->x.s + c->x.n;
	unsigned base = 10;
	uint64_t v = 0;

	while (e > s && strchr("uUlL", e[-1]))
		e--;
	if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (e - s > 1 && s[0] == '0') {
		base = 8;
	}
	for (; s < e; s++) {
		unsigned d = *s <= '9' ? (unsigned)(*s - '0') : (unsigned)((*s | 0x20) - 'a' + 10);

		if (d >= base)
			return fail(c, "bad number");
		if (v > (UINT64_MAX - d) / base)
			return fail(c, "number too large");
		v = v * base + d;
	}
	*out = v;
	adv(c);
	return 0;
}

/* A string literal token, without escapes, NUL-terminated in the pool. */
static int string(struct comp *c, uint32_t *at)
{
	size_t n;

	if (c->t != FR_TP_STR)
		return fail(c, "string expected");
	n = c->x.n - 2;
	if (memchr(c->x.s + 1, '\\', n))
		return fail(c, "escape in a string");
	*at = (uint32_t)(c->x.s + 1 - c->p->pool);
	c->p->pool[*at + n] = '\0';   /* its closing quote, already read */
	adv(c);
	return 0;
}

static const struct fr_tpfield *field(struct comp *c, const char *name, size_t n)
{
	for (size_t i = 0; i < c->f->nr_fields; i++)
		if (strlen(c->f->fields[i].name) == n && !memcmp(c->f->fields[i].name, name, n))
			return &c->f->fields[i];
	fail(c, "no such field");
	return NULL;
}

static int cond(struct comp *c);
static int unary(struct comp *c);

static int leaf(struct comp *c, enum kind k, uint32_t off, uint32_t size, bool is_str)
{
	int i = node(c, k, -1, -1, -1);

	if (i >= 0) {
		c->p->nodes[i].off = off;
		c->p->nodes[i].size = size;
		c->p->nodes[i].is_str = is_str;
	}
	return i;
}

/* REC->name, REC->name[N] */
static int rec(struct comp *c)
{
	const struct fr_tpfield *fd = field(c, c->x.s + 5, c->x.n - 5);
	uint64_t idx;
	uint32_t el;

	if (!fd)
		return -1;
	adv(c);
	if (fd->dynamic || (fd->array && !fd->array_len))
		return fail(c, "REC-> of a dynamic array");
	el = fd->array ? fd->size / fd->array_len : fd->size;
	if (fd->array && is(c, "[")) {
		adv(c);
		if (c->t != FR_TP_NUM || number(c, &idx))
			return fail(c, "array index not a number");
		if (idx >= fd->array_len || !expect(c, "]"))
			return fail(c, "array index out of its array");
		return leaf(c, K_FIELD, fd->offset + (uint32_t)idx * el, el, false);
	}
	if (fd->array && el != 1)
		return fail(c, "REC-> of an array of numbers");
	return leaf(c, fd->array ? K_ARRAY : K_FIELD, fd->offset, fd->size, fd->array);
}

/* { value, "string" }, ...: each value folded to a constant */
static int pairs(struct comp *c, int nd)
{
	struct fr_tpprint *p = c->p;
	uint32_t first = (uint32_t)p->nr_pairs;

	do {
		size_t mark = p->nr_nodes;
		struct pair pr;
		uint64_t v;
		int i;

		if (!expect(c, "{"))
			return -1;
		c->in_pair = true;
		i = cond(c);
		c->in_pair = false;
		if (i < 0 || p->nodes[i].is_str || !expect(c, ","))
			return fail(c, "bad flag value");
		if (!fr_tpprint__fold(p, i, &v))
			return fail(c, "flag value not a constant");
		pr.v = (int64_t)v < 0 ? -1 : (int64_t)v;   /* libtraceevent: negative is unknown */
		p->nr_nodes = mark;
		if (string(c, &pr.s) || !expect(c, "}"))
			return -1;
		if (p->nr_pairs >= FR_TPPRINT_NODES_MAX)
			return fail(c, "too many flags");
		if (fr_grow(&p->pairs, &p->cap_pairs, p->nr_pairs + 1, sizeof(*p->pairs), 16)) {
			c->nomem = true;
			return fail(c, "out of memory");
		}
		p->pairs[p->nr_pairs++] = pr;
	} while (is(c, ",") && (adv(c), true));
	p->nodes[nd].s = first;
	p->nodes[nd].n = (uint32_t)p->nr_pairs - first;
	return expect(c, ")") ? nd : -1;
}

/* __get_str(f), __get_rel_str(f), __print_symbolic(v, pairs),
 * __print_flags(v, "delim", pairs) */
static int helper(struct comp *c)
{
	const char *name = c->x.s;
	size_t n = c->x.n;
	bool sym = n == 16 && !memcmp(name, "__print_symbolic", n);
	bool flags = n == 13 && !memcmp(name, "__print_flags", n);
	int i, v;

	adv(c);
	if (!expect(c, "("))
		return -1;
	if (sym || flags) {
		if ((v = cond(c)) < 0 || c->p->nodes[v].is_str || !expect(c, ","))
			return fail(c, "bad __print_symbolic or __print_flags value");
		if ((i = node(c, sym ? K_SYM : K_FLAGS, v, -1, -1)) < 0)
			return -1;
		c->p->nodes[i].is_str = true;
		if (flags && (string(c, &c->p->nodes[i].d) || !expect(c, ",")))
			return -1;
		return pairs(c, i);
	}
	if ((n == 9 && !memcmp(name, "__get_str", n)) || (n == 13 && !memcmp(name, "__get_rel_str", n))) {
		const struct fr_tpfield *fd;

		if (c->t != FR_TP_IDENT || !(fd = field(c, c->x.s, c->x.n)))
			return fail(c, "__get_str of no field");
		if (!fd->dynamic || !strstr(fd->type, "char"))
			return fail(c, "__get_str of a field not a string");
		adv(c);
		if ((i = leaf(c, K_GETSTR, fd->offset, 4, true)) < 0 || !expect(c, ")"))
			return -1;
		c->p->nodes[i].relative = fd->relative;
		return i;
	}
	return fail(c, "a helper outside the grammar");
}

/* The masks of libtraceevent's casts: other types leave the value as it is. */
static uint64_t cast_mask(const char *type)
{
	static const struct { const char *name; uint64_t mask; } casts[] = {
		{ "char", 0xff }, { "unsigned char", 0xff }, { "u8", 0xff }, { "s8", 0xff },
		{ "short", 0xffff }, { "unsigned short", 0xffff }, { "u16", 0xffff }, { "s16", 0xffff },
		{ "int", 0xffffffff }, { "unsigned int", 0xffffffff }, { "u32", 0xffffffff },
		{ "s32", 0xffffffff },
	};

	for (size_t i = 0; i < sizeof(casts) / sizeof(casts[0]); i++)
		if (!strcmp(type, casts[i].name))
			return casts[i].mask;
	return UINT64_MAX;
}

/* "(TYPE)" at '(': the type's words joined by one space, then '*'s; what
 * follows must be a value or '(' (else libtraceevent does not take it as a
 * cast). Returns 1 and the mask, 0 when it is no cast, -1 refused. */
static int cast(struct comp *c, uint64_t *mask)
{
	struct fr_tplex y = c->x;
	char type[96] = "";
	size_t n = 0;
	bool ptr = false;
	enum fr_tptok u;

	while ((u = fr_tplex__next(&y)) == FR_TP_IDENT) {
		if (n + y.n + 2 > sizeof(type))
			return fail(c, "cast too long");
		n += (size_t)snprintf(type + n, sizeof(type) - n, "%s%.*s", n ? " " : "", (int)y.n, y.s);
	}
	while (n && u == FR_TP_PUNCT && y.n == 1 && *y.s == '*') {
		ptr = true;
		u = fr_tplex__next(&y);
	}
	if (!n)
		return 0;
	if (u != FR_TP_PUNCT || y.n != 1 || *y.s != ')')
		return fail(c, "not a cast");
	c->x = y;
	adv(c);
	if (c->t != FR_TP_REC && c->t != FR_TP_NUM && c->t != FR_TP_IDENT && !is(c, "("))
		return fail(c, "a cast of an operator");
	*mask = ptr || !strncmp(type, "struct", 6) ? UINT64_MAX : cast_mask(type);
	return 1;
}

static int primary(struct comp *c)
{
	uint64_t v;
	int i;

	switch (c->t) {
	case FR_TP_NUM:
		if (number(c, &v) || (i = node(c, K_NUM, -1, -1, -1)) < 0)
			return -1;
		c->p->nodes[i].v = v;
		return i;
	case FR_TP_STR:
		if ((i = node(c, K_STR, -1, -1, -1)) < 0 || string(c, &c->p->nodes[i].s))
			return -1;
		c->p->nodes[i].is_str = true;
		return i;
	case FR_TP_REC:
		return c->in_pair ? fail(c, "a field in a flag's value") : rec(c);
	case FR_TP_IDENT:
		return c->in_pair ? fail(c, "a name in a flag's value") : helper(c);
	default:
		break;
	}
	if (!is(c, "("))
		return fail(c, "unexpected token");
	v = 0;
	if ((i = cast(c, &v)) < 0)
		return -1;
	if (i) {
		if ((i = unary(c)) < 0 || c->p->nodes[i].is_str)
			return fail(c, "a cast of a string");
		if (v == UINT64_MAX)
			return i;
		if ((i = node(c, K_CAST, i, -1, -1)) >= 0)
			c->p->nodes[i].v = v;
		return i;
	}
	adv(c);
	i = cond(c);
	return i >= 0 && expect(c, ")") ? i : -1;
}

static int unary(struct comp *c)
{
	enum kind k;
	int i;

	if (c->depth >= FR_TPPRINT_DEPTH_MAX)
		return fail(c, "print fmt nested too deep");
	c->depth++;
	if (is(c, "-") || is(c, "~") || (is(c, "!") && !c->in_pair)) {
		k = *c->x.s == '-' ? K_NEG : *c->x.s == '~' ? K_INV : K_NOT;
		adv(c);
		i = unary(c);
		if (i >= 0 && c->p->nodes[i].is_str)
			i = fail(c, "an operator on a string");
		i = node(c, k, i, -1, -1);
	} else {
		i = primary(c);
	}
	c->depth--;
	return i;
}

static int prec(const struct comp *c)
{
	static const struct { const char *op; int prec; } ops[] = {
		{ "||", 1 }, { "&&", 2 }, { "|", 3 }, { "&", 5 }, { "==", 6 }, { "!=", 6 },
		{ "<", 7 }, { "<=", 7 }, { ">", 7 }, { ">=", 7 }, { "<<", 8 }, { ">>", 8 },
		{ "+", 9 }, { "-", 9 }, { "*", 10 }, { "/", 10 }, { "%", 10 },
	};

	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (is(c, ops[k].op))
			return c->in_pair && ops[k].prec == 10 ? 0 : ops[k].prec;
	return 0;
}

/* Binary operators of C's precedence, from min up; left to right. */
static int binary(struct comp *c, int min)
{
	int l = unary(c), p;

	while (l >= 0 && (p = prec(c)) >= min) {
		char op[3] = "";
		int r, i;

		memcpy(op, c->x.s, c->x.n);
		adv(c);
		r = binary(c, p + 1);
		if (r >= 0 && (c->p->nodes[l].is_str || c->p->nodes[r].is_str))
			r = fail(c, "an operator on a string");
		if (r < 0)
			return -1;
		if ((i = node(c, K_BIN, l, r, -1)) >= 0)
			memcpy(c->p->nodes[i].op, op, sizeof(op));
		l = i;
	}
	return l;
}

static int cond(struct comp *c)
{
	int q = binary(c, 1), a, b;

	if (q < 0 || !is(c, "?"))
		return q;
	if (c->p->nodes[q].kind == K_NOT)   /* libtraceevent takes !a ? b : c as !(a ? b : c) */
		return fail(c, "! before ?:");
	adv(c);
	if (c->p->nodes[q].is_str || (a = cond(c)) < 0 || !expect(c, ":") || (b = cond(c)) < 0)
		return fail(c, "bad ?:");
	if (c->p->nodes[a].is_str != c->p->nodes[b].is_str)
		return fail(c, "?: of a string and a number");
	if ((q = node(c, K_COND, q, a, b)) >= 0)
		c->p->nodes[q].is_str = c->p->nodes[a].is_str;
	return q;
}

static int piece(struct comp *c, const struct piece *pc)
{
	struct fr_tpprint *p = c->p;

	if (p->nr_pieces >= FR_TPPRINT_NODES_MAX)
		return fail(c, "print fmt too long");
	if (fr_grow(&p->pieces, &p->cap_pieces, p->nr_pieces + 1, sizeof(*p->pieces), 16)) {
		c->nomem = true;
		return fail(c, "out of memory");
	}
	p->pieces[p->nr_pieces++] = *pc;
	return 0;
}

/* A conversion at s (its '%'): %[-+ #0][width][.prec][hh|h|l|ll|L|z|Z] and
 * d i u o x X, a bare p, or s (no length); *end after it. */
static int conversion(struct comp *c, const char *s, const char *e, const char **end)
{
	struct piece pc = { .node = -1 };
	const char *q = s + 1;
	unsigned long w;

	while (q < e && strchr("-+ #0", *q) && *q)
		q++;
	for (int part = 0; part < 2; part++) {
		if (part && (q == e || *q != '.'))
			break;
		q += part;
		for (w = 0; q < e && *q >= '0' && *q <= '9'; q++)
			if ((w = w * 10 + (unsigned long)(*q - '0')) > FR_TPPRINT_WIDTH_MAX)
				return fail(c, "conversion too wide");
	}
	if (q < e && (*q == 'h' || *q == 'l')) {
		pc.ls = *q == 'h' ? -1 : 1;
		if (++q < e && *q == q[-1]) {
			pc.ls *= 2;
			q++;
		}
	} else if (q < e && strchr("LzZ", *q) && *q) {
		pc.ls = *q++ == 'L' ? 2 : 1;
	}
	if (q == e || !strchr("diouxXps", *q) || !*q)
		return fail(c, "conversion outside the grammar");
	pc.conv = *q++;
	if (pc.conv == 'p' && q < e && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
					(*q >= '0' && *q <= '9')))
		return fail(c, "%p with an extension");
	if ((pc.conv == 's' && pc.ls) || (pc.conv == 'p' && pc.ls))
		return fail(c, "length on %s or %p");
	if (pc.conv == 'p')
		pc.ls = 1;
	if ((size_t)(q - s) >= sizeof(pc.spec))
		return fail(c, "conversion too long");
	memcpy(pc.spec, s, (size_t)(q - s));
	*end = q;
	return piece(c, &pc);
}

/* The format string's pieces (its string tokens one after the other). */
static int format(struct comp *c)
{
	if (c->t != FR_TP_STR)
		return fail(c, "print fmt does not start with a string");
	for (; c->t == FR_TP_STR; adv(c)) {
		const char *s = c->x.s + 1, *e = c->x.s + c->x.n - 1, *lit = s;

		if (memchr(s, '\\', (size_t)(e - s)))
			return fail(c, "escape in the format string");
		for (const char *q = s; q < e;) {
			struct piece pc = { .s = (uint32_t)(lit - c->p->pool) };

			if (*q != '%') {
				q++;
				continue;
			}
			pc.n = (uint32_t)(q - lit) + (q + 1 < e && q[1] == '%');
			if (pc.n && piece(c, &pc))
				return -1;
			if (q + 1 < e && q[1] == '%') {
				lit = q += 2;
				continue;
			}
			if (conversion(c, q, e, &q))
				return -1;
			lit = q;
		}
		if (lit < e) {
			struct piece pc = { .s = (uint32_t)(lit - c->p->pool), .n = (uint32_t)(e - lit) };

			if (piece(c, &pc))
				return -1;
		}
	}
	return 0;
}

static int compile(struct comp *c)
{
	struct fr_tpprint *p = c->p;

	adv(c);
	if (format(c))
		return -1;
	for (size_t k = 0; k < p->nr_pieces; k++) {
		struct piece *pc = &p->pieces[k];
		int i;

		if (pc->n)
			continue;
		if (!expect(c, ",") || (i = cond(c)) < 0)
			return fail(c, "fewer arguments than conversions");
		if (p->nodes[i].is_str != (pc->conv == 's'))
			return fail(c, pc->conv == 's' ? "%s of a number" : "a number conversion of a string");
		pc = &p->pieces[k];
		pc->node = i;
	}
	if (c->t != FR_TP_END)
		return fail(c, "more arguments than conversions");
	return 0;
}

int fr_tpprint__compile(struct fr_tpprint *p, const struct fr_tpformat *f, size_t len,
			const char **why)
{
	struct comp c = { .p = p, .f = f };

	c.x = (struct fr_tplex){ p->pool, p->pool + len, NULL, 0 };
	if (!compile(&c))
		return 0;
	*why = c.why;
	return c.nomem ? -ENOMEM : -EOPNOTSUPP;
}
