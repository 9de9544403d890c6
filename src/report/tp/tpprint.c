/* src/report/tp/tpprint.c: a print fmt compiled by tpprint_parse.c, evaluated
 * on a record's bytes with libtraceevent's rules so that the text is the one
 * `perf script` prints (values read unsigned, casts that mask as their type
 * names say), every read bounded by the record (doc/format.md, "EVENT").
 */
#include "config.h"
#include "src/report/tp/tpprint_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/util.h"

/* ---- evaluating -------------------------------------------------------- */

struct ev {
	const uint8_t *raw;     /* NULL: folding constants */
	size_t size;
	bool bad;
};

static uint64_t num(const struct fr_tpprint *p, int i, struct ev *e)
{
	const struct node *nd = &p->nodes[i];
	uint64_t l, r;

	switch (nd->kind) {
	case K_NUM:
		return nd->v;
	case K_FIELD:
		l = 0;
		if (!e->raw || (uint64_t)nd->off + nd->size > e->size) {
			e->bad = true;
			return 0;
		}
		memcpy(&l, e->raw + nd->off, nd->size);   /* little-endian host: the low bytes */
		return l;
	case K_CAST:
		return num(p, nd->a, e) & nd->v;
	case K_NEG:
		return 0 - num(p, nd->a, e);
	case K_NOT:
		return !num(p, nd->a, e);
	case K_INV:
		return ~num(p, nd->a, e);
	case K_COND:   /* libtraceevent evaluates only the branch taken */
		return num(p, nd->a, e) ? num(p, nd->b, e) : num(p, nd->c, e);
	case K_BIN:
		break;
	default:
		e->bad = true;   /* a string where a number is read: refused when compiled */
		return 0;
	}
	l = num(p, nd->a, e);   /* both sides, as libtraceevent does */
	r = num(p, nd->b, e);
	switch (nd->op[0] << 8 | nd->op[1]) {
	case '+' << 8: return l + r;
	case '-' << 8: return l - r;
	case '*' << 8: return l * r;
	case '/' << 8:
	case '%' << 8:
		if (!r) {
			e->bad = true;
			return 0;
		}
		return nd->op[0] == '/' ? l / r : l % r;
	case '<' << 8 | '<': return l << (r & 63);   /* as the x86 shift does */
	case '>' << 8 | '>': return l >> (r & 63);
	case '<' << 8: return l < r;
	case '>' << 8: return l > r;
	case '<' << 8 | '=': return l <= r;
	case '>' << 8 | '=': return l >= r;
	case '=' << 8 | '=': return l == r;
	case '!' << 8 | '=': return l != r;
	case '&' << 8: return l & r;
	case '|' << 8: return l | r;
	case '&' << 8 | '&': return l && r;
	case '|' << 8 | '|': return l || r;
	default:
		e->bad = true;
		return 0;
	}
}

struct out {
	char *buf;
	size_t len, n;
	bool cut;
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
/* spec: a conversion the grammar accepted, its argument of the type it says */
static void put(struct out *o, const char *spec, ...)
{
	size_t room = o->len - o->n;
	va_list ap;
	int w;

	va_start(ap, spec);
	w = vsnprintf(o->buf + o->n, room, spec, ap);
	va_end(ap);
	if (w < 0)
		w = 0;
	if ((size_t)w >= room) {
		o->cut = true;
		w = room ? (int)room - 1 : 0;
	}
	o->n += (size_t)w;
}
#pragma GCC diagnostic pop

/* A string through spec, its control bytes as '_' (the line stays one line). */
static void put_str(struct out *o, const char *spec, const char *s)
{
	size_t at = o->n;

	put(o, spec, s);
	for (size_t i = at; i < o->n; i++)
		if ((unsigned char)o->buf[i] < 0x20 || o->buf[i] == 0x7f)
			o->buf[i] = '_';
}

/* __print_symbolic and __print_flags as libtraceevent prints them. */
static void put_flags(const struct fr_tpprint *p, const struct node *nd, const char *spec,
		      struct out *o, struct ev *e)
{
	int64_t v = (int64_t)num(p, nd->a, e);
	bool any = false;

	for (uint32_t k = nd->s; k < nd->s + nd->n; k++) {
		const struct pair *pr = &p->pairs[k];

		if (nd->kind == K_SYM && v == pr->v) {
			put_str(o, spec, p->pool + pr->s);
			return;
		}
		if (nd->kind == K_SYM)
			continue;
		if (!v && pr->v < 0) {
			put_str(o, spec, p->pool + pr->s);
			return;
		}
		if (pr->v > 0 && (v & pr->v) == pr->v) {
			if (any)
				put_str(o, "%s", p->pool + nd->d);
			put_str(o, spec, p->pool + pr->s);
			any = true;
			v &= ~pr->v;
		}
	}
	if (nd->kind == K_SYM || v) {
		if (any)
			put_str(o, "%s", p->pool + nd->d);
		put(o, "0x%llx", (unsigned long long)v);
	}
}

static void str(const struct fr_tpprint *p, int i, const char *spec, struct out *o, struct ev *e)
{
	const struct node *nd = &p->nodes[i];
	char tmp[1024];
	uint32_t w, at;
	size_t n;

	switch (nd->kind) {
	case K_STR:
		put_str(o, spec, p->pool + nd->s);
		return;
	case K_COND:
		str(p, num(p, nd->a, e) ? nd->b : nd->c, spec, o, e);
		return;
	case K_SYM:
	case K_FLAGS:
		put_flags(p, nd, spec, o, e);
		return;
	case K_ARRAY:   /* its bytes up to the first NUL */
		if ((uint64_t)nd->off + nd->size > e->size)
			break;
		n = nd->size < sizeof(tmp) - 1 ? nd->size : sizeof(tmp) - 1;
		memcpy(tmp, e->raw + nd->off, n);
		tmp[n] = '\0';
		put_str(o, spec, tmp);
		return;
	case K_GETSTR:   /* up to its NUL, which must lie inside the record */
		if ((uint64_t)nd->off + 4 > e->size)
			break;
		memcpy(&w, e->raw + nd->off, 4);
		at = (w & 0xffff) + (nd->relative ? nd->off + 4 : 0);
		if (at >= e->size || !memchr(e->raw + at, '\0', e->size - at))
			break;
		put_str(o, spec, (const char *)e->raw + at);
		return;
	default:
		break;
	}
	e->bad = true;
}

int fr_tpprint__eval(const struct fr_tpprint *p, const void *raw, size_t size, char *buf,
		     size_t len)
{
	struct out o = { buf, len, 0, false };
	struct ev e = { raw, size, false };

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (size_t k = 0; k < p->nr_pieces && !e.bad; k++) {
		const struct piece *pc = &p->pieces[k];
		uint64_t v;

		if (pc->n) {
			put(&o, "%.*s", (int)pc->n, p->pool + pc->s);
			continue;
		}
		if (pc->conv == 's') {
			str(p, pc->node, pc->spec, &o, &e);
			continue;
		}
		v = num(p, pc->node, &e);
		if (pc->conv == 'p')
			put(&o, pc->spec, (void *)(uintptr_t)v);
		else if (pc->ls == -2)
			put(&o, pc->spec, (char)v);
		else if (pc->ls == -1)
			put(&o, pc->spec, (short)v);
		else if (pc->ls == 0)
			put(&o, pc->spec, (int)v);
		else if (pc->ls == 1)
			put(&o, pc->spec, (long)v);
		else
			put(&o, pc->spec, (long long)v);
	}
	if (e.bad)
		return -EBADMSG;
	return o.cut ? -ENOSPC : 0;
}

bool fr_tpprint__fold(const struct fr_tpprint *p, int i, uint64_t *v)
{
	struct ev e = { NULL, 0, false };

	*v = num(p, i, &e);
	return !e.bad;
}

int fr_tpprint__new(struct fr_tpprint **out, const struct fr_tpformat *f, const char *text,
		    size_t len, char *why, size_t why_len)
{
	struct fr_tpprint *p = calloc(1, sizeof(*p));
	const char *msg = NULL;
	int err = -EOPNOTSUPP;

	*out = NULL;
	if (p && len <= FR_TPFORMAT_MAX)
		p->pool = malloc(len + 1);
	if (!p || (!p->pool && len <= FR_TPFORMAT_MAX)) {
		fr_tpprint__delete(p);
		return -ENOMEM;
	}
	if (p->pool) {
		memcpy(p->pool, text, len);
		p->pool[len] = '\0';
		err = fr_tpprint__compile(p, f, len, &msg);
	}
	if (err) {
		if (why && why_len)
			snprintf(why, why_len, "%s", msg ? msg : "print fmt too long");
		fr_tpprint__delete(p);
		return err;
	}
	*out = p;
	return 0;
}

void fr_tpprint__delete(struct fr_tpprint *p)
{
	if (!p)
		return;
	free(p->pool);
	free(p->nodes);
	free(p->pieces);
	free(p->pairs);
	free(p);
}
