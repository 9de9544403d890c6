/* src/report/tp/tpformat.c: the strict grammar of a recorded tracepoint format
 * (header, field lines, print fmt in the forms the kernel emits) and the
 * canonical text composed from what it accepted (doc/format.md, "EVENT").
 */
#include "config.h"
#include "src/report/tp/tpformat.h"
#include "src/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PF_DEPTH_MAX 64     /* nesting of ( [ { in a print fmt */
#define PF_ARGS_MAX 512     /* arguments of a print fmt */

struct cursor {
	const char *p, *end;
};

static bool is_ident0(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident(char c)
{
	return is_ident0(c) || (c >= '0' && c <= '9');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A decimal number of at most max at p (end: one past the text); *next after it. */
static int num(const char *p, const char *end, uint64_t max, uint64_t *out, const char **next)
{
	uint64_t v = 0;
	const char *s = p;

	while (p < end && is_digit(*p) && p - s < 20) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > max)
			return -ERANGE;
		p++;
	}
	if (p == s || (p < end && is_digit(*p)))
		return -EINVAL;
	*out = v;
	*next = p;
	return 0;
}

static bool eat(const char **p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(end - *p) < n || memcmp(*p, lit, n))
		return false;
	*p += n;
	return true;
}

/* The next line of c (without its '\n'); false at the end. */
static bool next_line(struct cursor *c, const char **line, const char **eol)
{
	const char *nl;

	if (c->p >= c->end)
		return false;
	nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	*line = c->p;
	*eol = nl ? nl : c->end;
	c->p = nl ? nl + 1 : c->end;
	return true;
}

static void refuse(struct fr_tpformat *f, const char *prefix, const char *what)
{
	if (!f->why[0])
		snprintf(f->why, sizeof(f->why), "%s%s", prefix, what);
}

/* ---- field lines ------------------------------------------------------- */

/* "TYPE NAME", "TYPE NAME[N]", "TYPE NAME[]", "__data_loc TYPE[] NAME" */
static const char *parse_decl(struct fr_tpfield *fd, const char *s, const char *e)
{
	const char *n, *t = s;
	uint64_t v;

	if (eat(&t, e, "__data_loc "))
		fd->dynamic = true;
	else if (eat(&t, e, "__rel_loc "))
		fd->dynamic = fd->relative = true;
	if (e > t && e[-1] == ']' && !fd->dynamic) {
		const char *lb = e - 1;

		while (lb > t && *lb != '[')
			lb--;
		if (*lb != '[')
			return "unbalanced [";
		fd->array = true;
		if (lb + 1 < e - 1) {
			const char *after;

			if (num(lb + 1, e - 1, FR_TPRECORD_MAX, &v, &after) || after != e - 1 || !v)
				return "bad array length";
			fd->array_len = (uint32_t)v;
		}
		e = lb;
	}
	for (n = e; n > t && is_ident(n[-1]); n--)
		;
	if (n == e || !is_ident0(*n) || (size_t)(e - n) >= sizeof(fd->name))
		return "bad field name";
	memcpy(fd->name, n, (size_t)(e - n));
	fd->name[e - n] = '\0';
	if (n == t || (n[-1] != ' ' && n[-1] != '*'))
		return "no type";
	while (n > t && n[-1] == ' ')
		n--;
	if (n == t || (size_t)(n - t) >= sizeof(fd->type) || !is_ident0(*t))
		return "bad type";
	for (const char *q = t; q < n; q++) {
		if (q + 2 == n && fd->dynamic && q[0] == '[' && q[1] == ']')
			break;
		if (!is_ident(*q) && *q != ' ' && *q != '*')
			return "bad type";
		if (*q == ' ' && q[1] == ' ')
			return "bad type";
	}
	memcpy(fd->type, t, (size_t)(n - t));
	fd->type[n - t] = '\0';
	/* libtraceevent takes any type that starts so for a dynamic field */
	if (strstr(fd->type, "__data_loc") || strstr(fd->type, "__rel_loc"))
		return "bad type";
	return NULL;
}

static const char *check_size(const struct fr_tpfield *fd)
{
	uint32_t el;

	if ((uint64_t)fd->offset + fd->size > FR_TPRECORD_MAX)
		return "field past the largest record";
	if (fd->dynamic)
		return fd->size == 4 ? NULL : "__data_loc size is not 4";
	if (fd->array && !fd->array_len)
		return fd->size == 0 ? NULL : "[] with a size";
	if (fd->array) {
		if (fd->size % fd->array_len)
			return "array size not a multiple of its length";
		el = fd->size / fd->array_len;
	} else {
		el = fd->size;
	}
	return el == 1 || el == 2 || el == 4 || el == 8 ? NULL : "size not 1, 2, 4 or 8";
}

/* "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:B;" */
static const char *parse_field(struct fr_tpfield *fd, const char *s, const char *e)
{
	const char *semi, *why;
	uint64_t v;

	memset(fd, 0, sizeof(*fd));
	if (!eat(&s, e, "\tfield:"))
		return "not a field line";
	semi = memchr(s, ';', (size_t)(e - s));
	if (!semi)
		return "no ';'";
	if ((why = parse_decl(fd, s, semi)))
		return why;
	s = semi + 1;
	if (!eat(&s, e, "\toffset:") || num(s, e, FR_TPRECORD_MAX, &v, &s) || !eat(&s, e, ";"))
		return "bad offset";
	fd->offset = (uint32_t)v;
	if (!eat(&s, e, "\tsize:") || num(s, e, FR_TPRECORD_MAX, &v, &s) || !eat(&s, e, ";"))
		return "bad size";
	fd->size = (uint32_t)v;
	if (!eat(&s, e, "\tsigned:") || num(s, e, 1, &v, &s) || !eat(&s, e, ";") || s != e)
		return "bad signed";
	fd->is_signed = v;
	return check_size(fd);
}

static const char *add_field(struct fr_tpformat *f, struct fr_tpfield *fd)
{
	const struct fr_tpfield *last;

	if (f->nr_fields >= FR_TPFIELDS_MAX)
		return "too many fields";
	if (fr_grow(&f->fields, &f->cap, f->nr_fields + 1, sizeof(*f->fields), 16))
		return "out of memory";
	last = f->nr_fields ? &f->fields[f->nr_fields - 1] : NULL;
	if (last && fd->offset < last->offset + last->size)
		return "field overlaps the one before";
	for (size_t i = 0; i < f->nr_fields; i++)
		if (!strcmp(f->fields[i].name, fd->name))
			return "field name given twice";
	if (fd->common != !strncmp(fd->name, "common_", 7))
		return "common_ field outside the common block";
	f->fields[f->nr_fields++] = *fd;
	return NULL;
}

/* ---- print fmt --------------------------------------------------------- */

static enum fr_tptok quoted(struct fr_tplex *x, char q, enum fr_tptok t)
{
	const char *p = x->p + 1;

	while (p < x->end && *p != q) {
		if (*p == '\\' && ++p == x->end)
			return FR_TP_BAD;
		p++;
	}
	if (p == x->end)
		return FR_TP_BAD;
	x->n = (size_t)(p + 1 - x->s);
	x->p = p + 1;
	return t;
}

enum fr_tptok fr_tplex__next(struct fr_tplex *x)
{
	static const char *const ops2[] = { "<<", ">>", "<=", ">=", "==", "!=", "&&", "||" };
	const char *p = x->p;

	while (p < x->end && (*p == ' ' || *p == '\t' || *p == '\n'))
		p++;
	x->p = x->s = p;
	if (p == x->end)
		return FR_TP_END;
	if (*p == '"')
		return quoted(x, '"', FR_TP_STR);
	if (*p == '\'')
		return quoted(x, '\'', FR_TP_CHR);
	if (is_digit(*p)) {   /* 0x1f, 017, 12, with u/l suffixes */
		bool hex = x->end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
		const char *d = p += hex ? 2 : 0;

		while (p < x->end && (is_digit(*p) || (hex && strchr("abcdefABCDEF", *p))))
			p++;
		if (p == d)
			return FR_TP_BAD;
		while (p < x->end && strchr("uUlL", *p))
			p++;
		if (p < x->end && is_ident(*p))
			return FR_TP_BAD;
		x->n = (size_t)(p - x->s);
		x->p = p;
		return FR_TP_NUM;
	}
	if (is_ident0(*p)) {
		while (p < x->end && is_ident(*p))
			p++;
		x->n = (size_t)(p - x->s);
		x->p = p;
		if (x->n == 3 && !memcmp(x->s, "REC", 3)) {
			if (!eat(&p, x->end, "->") || p == x->end || !is_ident0(*p))
				return FR_TP_BAD;
			while (p < x->end && is_ident(*p))
				p++;
			x->n = (size_t)(p - x->s);
			x->p = p;
			return FR_TP_REC;
		}
		return FR_TP_IDENT;
	}
	if (x->end - p >= 2 && p[0] == '-' && p[1] == '>')
		return FR_TP_BAD;   /* only REC-> (above) */
	for (size_t i = 0; i < sizeof(ops2) / sizeof(ops2[0]); i++)
		if (x->end - p >= 2 && !memcmp(p, ops2[i], 2)) {
			x->n = 2;
			x->p = p + 2;
			return FR_TP_PUNCT;
		}
	if (strchr("()[]{},?:+-*/%&|^~!<>.;=", *p) && *p) {
		x->n = 1;
		x->p = p + 1;
		return FR_TP_PUNCT;
	}
	return FR_TP_BAD;
}

/* A number token (n bytes at s) whose value is 0. */
static bool zero(const char *s, size_t n)
{
	for (size_t i = 0; i < n && !strchr("uUlL", s[i]); i++)
		if (s[i] != '0' && !(i == 1 && (s[i] == 'x' || s[i] == 'X')))
			return false;
	return true;
}

struct conv {
	const char *s;          /* in the format string */
	size_t n;
	int star;               /* arguments its '*'s take */
	bool simple;            /* %[flags][width][.prec][len][diouxXc] or a bare %p */
	bool hex_prefix;        /* the text before it ends with "0x" */
};

/* The conversions of the format string s..e (between its quotes). */
static const char *parse_convs(const char *s, const char *e, struct conv *cv, size_t max,
			       size_t *nr)
{
	const char *lit = s;

	*nr = 0;
	for (const char *p = s; p < e; p++) {
		struct conv c = { .s = p };

		if (*p == '\\') {
			p++;
			continue;
		}
		if (*p != '%')
			continue;
		if (p + 1 < e && p[1] == '%') {
			p++;
			continue;
		}
		c.hex_prefix = p - lit >= 2 && p[-2] == '0' && p[-1] == 'x';
		for (p++; p < e && strchr("-+ #0", *p); p++)
			;
		for (; p < e && (is_digit(*p) || *p == '*' || *p == '.'); p++)
			c.star += *p == '*';
		for (; p < e && strchr("hlLzZjt", *p); p++)
			;
		if (p == e || !strchr("diouxXcsp", *p))
			return "unknown conversion in print fmt";
		c.simple = *p != 's' && *p != 'o' && *p != 'c' && !c.star;
		if (*p == 'p' && p + 1 < e && is_ident(p[1])) {
			c.simple = false;
			while (p + 1 < e && is_ident(p[1]))
				p++;
		}
		c.n = (size_t)(p + 1 - c.s);
		if (*nr >= max || c.n >= sizeof(((struct fr_tpfield *)0)->conv))
			return "print fmt too complex";
		cv[(*nr)++] = c;
		lit = p + 1;
	}
	return NULL;
}

static struct fr_tpfield *find_field(struct fr_tpformat *f, const char *name, size_t n)
{
	for (size_t i = 0; i < f->nr_fields; i++)
		if (strlen(f->fields[i].name) == n && !memcmp(f->fields[i].name, name, n))
			return &f->fields[i];
	return NULL;
}

/* One argument a..b (the text of its tokens): "(cast)...REC->field" with
 * only type names in the casts, wrapped in any number of parentheses. */
static void arg_field(struct fr_tpformat *f, const struct conv *c, const char *a, const char *b)
{
	char casts[96] = "";
	struct fr_tplex x = { a, b, NULL, 0 };
	struct fr_tpfield *fd;
	enum fr_tptok t;
	size_t cl = 0;
	int open = 0;

	while ((t = fr_tplex__next(&x)) == FR_TP_PUNCT && x.n == 1 && *x.s == '(') {
		struct fr_tplex y = x;
		size_t at = cl;
		enum fr_tptok u;

		/* a cast: a type name (identifiers, then '*'s) up to ')', its
		 * tokens joined by one space */
		while ((u = fr_tplex__next(&y)) == FR_TP_IDENT || (u == FR_TP_PUNCT && *y.s == '*')) {
			if (cl + y.n + 3 >= sizeof(casts))
				return;
			if (u == FR_TP_PUNCT && cl == at)
				break;   /* starts with '*': not a type */
			cl += (size_t)snprintf(casts + cl, sizeof(casts) - cl, "%s%.*s",
					       cl == at ? "(" : " ", (int)y.n, y.s);
		}
		if (cl > at && u == FR_TP_PUNCT && *y.s == ')') {
			cl += (size_t)snprintf(casts + cl, sizeof(casts) - cl, ")");
			x = y;
			continue;
		}
		if (cl > at)
			return;   /* "(a b" then something else */
		open++;
	}
	if (t != FR_TP_REC)
		return;
	fd = find_field(f, x.s + 5, x.n - 5);
	while (open-- > 0)
		if (fr_tplex__next(&x) != FR_TP_PUNCT || *x.s != ')')
			return;
	if (fr_tplex__next(&x) != FR_TP_END || !fd || fd->conv[0] || fd->array || fd->dynamic)
		return;
	memcpy(fd->conv, c->s, c->n);
	fd->conv[c->n] = '\0';
	snprintf(fd->casts, sizeof(fd->casts), "%s", casts);
	fd->hex_prefix = c->hex_prefix;
}

/* `"format", arg, arg...`: the tokens of C expressions, brackets balanced,
 * every REC->x a field of the event, one argument per conversion. */
static const char *parse_print(struct fr_tpformat *f, const char *s, const char *e)
{
	static struct conv cv[PF_ARGS_MAX];
	const char *fs, *fe, *args[PF_ARGS_MAX + 1], *why;
	char stack[PF_DEPTH_MAX];
	struct fr_tplex x = { s, e, NULL, 0 };
	size_t nconv, nargs = 0, need = 0, depth = 0;
	bool div = false;
	enum fr_tptok t;

	if ((t = fr_tplex__next(&x)) != FR_TP_STR)
		return "print fmt does not start with a string";
	for (nconv = 0; t == FR_TP_STR; t = fr_tplex__next(&x)) {   /* "..." "..." is one string */
		size_t more;

		fs = x.s + 1;
		fe = x.s + x.n - 1;
		if ((why = parse_convs(fs, fe, cv + nconv, PF_ARGS_MAX - nconv, &more)))
			return why;
		nconv += more;
	}
	while (t != FR_TP_END) {
		if (t == FR_TP_BAD)
			return "print fmt: bad token";
		if (t == FR_TP_REC && !find_field(f, x.s + 5, x.n - 5))
			return "print fmt: REC-> names no field";
		if (t == FR_TP_NUM && div && zero(x.s, x.n))
			return "print fmt: division by zero";
		div = t == FR_TP_PUNCT && x.n == 1 && (*x.s == '/' || *x.s == '%');
		if (t == FR_TP_PUNCT && x.n == 1 && strchr("([{", *x.s)) {
			if (depth >= PF_DEPTH_MAX)
				return "print fmt nested too deep";
			stack[depth++] = *x.s;
		} else if (t == FR_TP_PUNCT && x.n == 1 && strchr(")]}", *x.s)) {
			char o = *x.s == ')' ? '(' : *x.s == ']' ? '[' : '{';

			if (!depth || stack[--depth] != o)
				return "print fmt: unbalanced brackets";
		} else if (t == FR_TP_PUNCT && x.n == 1 && *x.s == ',' && !depth) {
			if (nargs >= PF_ARGS_MAX)
				return "print fmt too complex";
			args[nargs++] = x.p;
		} else if (!nargs) {
			return "print fmt: no ',' after the format string";
		}
		t = fr_tplex__next(&x);
	}
	if (depth)
		return "print fmt: unbalanced brackets";
	args[nargs] = e + 1;   /* each argument ends one before the next starts */
	for (size_t i = 0; i < nconv; i++)
		need += 1 + (size_t)cv[i].star;
	if (need != nargs)
		return "print fmt: conversions and arguments differ in number";
	for (size_t i = 0, a = 0; i < nconv; a += 1 + (size_t)cv[i].star, i++) {
		const char *ab = args[a + (size_t)cv[i].star];
		const char *ae = args[a + (size_t)cv[i].star + 1] - 1;

		for (size_t k = a; k < a + (size_t)cv[i].star + 1; k++)
			if (args[k + 1] - 1 <= args[k])
				return "print fmt: empty argument";
		if (cv[i].simple)
			arg_field(f, &cv[i], ab, ae);
	}
	return NULL;
}

/* ---- the whole text ---------------------------------------------------- */

static int parse_header(struct fr_tpformat *f, struct cursor *c)
{
	const char *l, *e, *p;
	uint64_t id;

	if (!next_line(c, &l, &e) || !eat(&l, e, "name: ") || l == e ||
	    (size_t)(e - l) >= sizeof(f->name))
		return -EINVAL;
	for (p = l; p < e; p++)
		if (!is_ident(*p))
			return -EINVAL;
	memcpy(f->name, l, (size_t)(e - l));
	f->name[e - l] = '\0';
	if (!next_line(c, &l, &e) || !eat(&l, e, "ID: ") || num(l, e, UINT32_MAX, &id, &p) ||
	    p != e)
		return -EINVAL;
	f->id = id;
	if (!next_line(c, &l, &e) || e - l != 7 || memcmp(l, "format:", 7))
		return -EINVAL;
	return 0;
}

int fr_tpformat__parse(struct fr_tpformat *f, const char *text, size_t len)
{
	struct cursor c = { text, text + len };
	const char *l, *e;
	int block = 0, err;

	memset(f, 0, sizeof(*f));
	if (!len || len > FR_TPFORMAT_MAX)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)text[i];

		if ((ch < 0x20 || ch >= 0x7f) && ch != '\n' && ch != '\t')
			return -EINVAL;
	}
	if ((err = parse_header(f, &c)))
		return err;
	while (block < 2 && next_line(&c, &l, &e)) {
		struct fr_tpfield fd;
		const char *why;

		if (l == e) {
			block++;
			continue;
		}
		why = parse_field(&fd, l, e);
		fd.common = block == 0;
		if (!why)
			why = add_field(f, &fd);
		if (why)
			refuse(f, "field line: ", why);
		else if (block == 0)
			f->nr_common++;
	}
	if (!f->nr_fields)
		return -EINVAL;
	if (block < 2 || !next_line(&c, &l, &e) || !eat(&l, e, "print fmt: ")) {
		refuse(f, "", "no print fmt line");
	} else {
		const char *pe = c.end > l && c.end[-1] == '\n' ? c.end - 1 : c.end;
		const char *why = parse_print(f, l, pe);

		if (why)
			refuse(f, "", why);
		f->print_off = (size_t)(l - text);
		f->print_len = (size_t)(pe - l);
	}
	if (f->why[0])   /* nothing of a refused print fmt is used */
		for (size_t i = 0; i < f->nr_fields; i++)
			f->fields[i].conv[0] = f->fields[i].casts[0] = '\0';
	return f->why[0] ? -EBADMSG : 0;
}

void fr_tpformat__exit(struct fr_tpformat *f)
{
	free(f->fields);
	f->fields = NULL;
	f->nr_fields = f->nr_common = f->cap = 0;
}

char *fr_tpformat__compose(const struct fr_tpformat *f)
{
	size_t cap = 512 + f->nr_fields * 400;
	char *buf = malloc(cap);
	size_t n = 0;

	if (!buf)
		return NULL;
#define PUT(...) (n += (size_t)snprintf(buf + n, cap - n, __VA_ARGS__))
	PUT("name: %s\nID: %llu\nformat:\n", f->name, (unsigned long long)f->id);
	for (size_t i = 0; i < f->nr_fields; i++) {
		const struct fr_tpfield *fd = &f->fields[i];
		char dim[16] = "";

		if (fd->array)
			snprintf(dim, sizeof(dim), fd->array_len ? "[%u]" : "[]", fd->array_len);
		if (i == f->nr_common)
			PUT("\n");
		PUT("\tfield:%s%s %s%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
		    fd->relative ? "__rel_loc " : fd->dynamic ? "__data_loc " : "", fd->type, fd->name,
		    dim, fd->offset, fd->size, fd->is_signed);
	}
	if (f->nr_common == f->nr_fields)
		PUT("\n");
	PUT("\nprint fmt: \"");
	for (size_t i = 0; i < f->nr_fields; i++)
		if (f->fields[i].conv[0])
			PUT(" %s=%s%s", f->fields[i].name, f->fields[i].hex_prefix ? "0x" : "",
			    f->fields[i].conv);
	PUT("\"");
	for (size_t i = 0; i < f->nr_fields; i++)
		if (f->fields[i].conv[0])
			PUT(", (%s(REC->%s))", f->fields[i].casts, f->fields[i].name);
	PUT("\n");
#undef PUT
	if (n >= cap) {   /* cannot happen: cap covers every field's longest line */
		free(buf);
		return NULL;
	}
	return buf;
}
