/* src/report/flame.c: --format=flamegraph, an interactive flame graph drawn
 * as one self-contained SVG (frames as rects with <title>, search, click to
 * zoom) from the folded stacks (folded.c); also inlined by --format=html.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/util.h"
#include "src/report/report.h"

#define FRAME_H 16     /* px per level */
#define PAD 10         /* left and right */
#define TOP 56         /* title and controls */
#define BOTTOM 30      /* the details line */
#define MIN_W 0.1      /* frames narrower than this (px) are left out */

struct node {
	const char *name;
	uint64_t weight;
	uint32_t child, next;   /* first child, next sibling: index + 1, 0 none */
};

struct tree {
	struct node *nodes;
	size_t nr, cap;
	uint32_t depth;         /* of the deepest node */
};

/* The child of parent named name, added on first use: its index, or -ENOMEM. */
static long child_of(struct tree *t, uint32_t parent, const char *name)
{
	uint32_t *link = &t->nodes[parent].child;

	for (uint32_t c = *link; c; c = t->nodes[c - 1].next) {
		if (t->nodes[c - 1].name == name || !strcmp(t->nodes[c - 1].name, name))
			return c - 1;
		link = &t->nodes[c - 1].next;
	}
	if (t->nr >= UINT32_MAX - 1 || fr_grow(&t->nodes, &t->cap, t->nr + 1, sizeof(*t->nodes), 256))
		return -ENOMEM;
	link = &t->nodes[parent].child;   /* the array may have moved */
	while (*link)
		link = &t->nodes[*link - 1].next;
	t->nodes[t->nr] = (struct node){ name, 0, 0, 0 };
	*link = (uint32_t)++t->nr;
	return (long)t->nr - 1;
}

static int add_stack(void *ctx, const char *comm, const struct fr_sym *const *frames, size_t n,
		     uint64_t weight, uint64_t samples, uint64_t period)
{
	struct tree *t = ctx;
	long at = child_of(t, 0, comm);

	(void)samples;
	(void)period;
	t->nodes[0].weight += weight;
	if (at < 0)
		return (int)at;
	t->nodes[at].weight += weight;
	for (size_t i = n; i-- > 0;) {
		at = child_of(t, (uint32_t)at, frames[i]->name);
		if (at < 0)
			return (int)at;
		t->nodes[at].weight += weight;
	}
	if (n + 1 > t->depth)
		t->depth = (uint32_t)n + 1;
	return 0;
}

static const struct tree *sort_tree;

static int cmp_child(const void *a, const void *b)
{
	return strcmp(sort_tree->nodes[*(const uint32_t *)a - 1].name,
		      sort_tree->nodes[*(const uint32_t *)b - 1].name);
}

/* Children in name order (as flamegraph.pl draws them): the output does not
 * depend on the order the stacks came in. */
static int sort_children(struct tree *t)
{
	uint32_t *buf = NULL;
	size_t cap = 0;

	sort_tree = t;
	for (size_t i = 0; i < t->nr; i++) {
		size_t n = 0;

		for (uint32_t c = t->nodes[i].child; c; c = t->nodes[c - 1].next) {
			if (fr_grow(&buf, &cap, n + 1, sizeof(*buf), 64)) {
				free(buf);
				return -ENOMEM;
			}
			buf[n++] = c;
		}
		if (n < 2)
			continue;
		qsort(buf, n, sizeof(*buf), cmp_child);
		t->nodes[i].child = buf[0];
		for (size_t k = 0; k < n; k++)
			t->nodes[buf[k] - 1].next = k + 1 < n ? buf[k + 1] : 0;
	}
	free(buf);
	return 0;
}

void fr_xml__string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n;

		switch (*p) {
		case '&': fputs("&amp;", f); p++; continue;
		case '<': fputs("&lt;", f); p++; continue;
		case '>': fputs("&gt;", f); p++; continue;
		case '"': fputs("&quot;", f); p++; continue;
		case '\'': fputs("&#39;", f); p++; continue;
		}
		if (*p < 0x20 || *p == 0x7f) {   /* not allowed in XML 1.0 */
			fputc('_', f);
			p++;
		} else if ((n = fr_utf8_len(p))) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			fputs("\xef\xbf\xbd", f);   /* U+FFFD */
			p++;
		}
	}
}

/* A warm colour from the name, the same for the same name. */
static void color(const char *name, unsigned *r, unsigned *g, unsigned *b)
{
	uint32_t h = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	*r = 205 + (h & 0xff) * 50 / 255;
	*g = ((h >> 8) & 0xff) * 230 / 255;
	*b = ((h >> 16) & 0xff) * 55 / 255;
}

/* The label that fits w px at about 7 px per character ("" under 3). */
static void label(FILE *f, const char *name, double w)
{
	size_t fit = w > 6 ? (size_t)((w - 6) / 7) : 0, len = 0;
	const unsigned char *p = (const unsigned char *)name;
	char buf[512];

	if (fit < 3)
		return;
	while (p[len] && len < fit)
		len++;
	if (p[len]) {      /* cut, on a character boundary */
		len = fit - 2;
		while (len && (p[len] & 0xc0) == 0x80)
			len--;
	}
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	fr_xml__string(f, buf);
	if (p[len])
		fputs("..", f);
}

struct draw {
	FILE *f;
	const struct tree *t;
	double scale;    /* px per unit of weight */
	uint32_t height;
	const char *unit;
	const struct fr_flame_opts *o;
	const char **path;       /* names from the root to the frame drawn (o->fill) */
};

static void draw(const struct draw *d, uint32_t i, uint32_t depth, double x)
{
	const struct node *n = &d->t->nodes[i];
	double w = (double)n->weight * d->scale, y = d->height - BOTTOM - (depth + 1.0) * FRAME_H;
	unsigned r, g, b, rgb[3];
	char note[64] = "";

	if (w < MIN_W)
		return;
	color(n->name, &r, &g, &b);
	d->path[depth] = n->name;
	if (d->o->fill) {
		d->o->fill(d->o->fill_ctx, d->path, depth + 1, n->weight, rgb, note, sizeof(note));
		r = rgb[0];
		g = rgb[1];
		b = rgb[2];
	}
	fputs("<g><title>", d->f);
	fr_xml__string(d->f, n->name);
	fprintf(d->f, " (%llu %s, %.2f%%%s%s)</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" "
		"height=\"%d\" fill=\"rgb(%u,%u,%u)\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" "
		"y=\"%.0f\">", (unsigned long long)n->weight, d->unit,
		100.0 * (double)n->weight / (double)d->t->nodes[0].weight, note[0] ? ", " : "", note, x, y, w, FRAME_H - 1,
		r, g, b, x + 3, y + 11.5);
	label(d->f, n->name, w);
	fputs("</text></g>\n", d->f);
	for (uint32_t c = n->child; c; c = d->t->nodes[c - 1].next) {
		draw(d, c - 1, depth + 1, x);
		x += (double)d->t->nodes[c - 1].weight * d->scale;
	}
}

/* Search, zoom and labels; the frames' titles and rects are the data. */
static const char script[] =
"var W=0,P=10,fr=[],det,mat,unz;\n"
"function init(){var s=document.getElementById('flame');W=+s.getAttribute('width');\n"
" det=document.getElementById('details');mat=document.getElementById('matched');\n"
" unz=document.getElementById('unzoom');\n"
" var gs=document.getElementById('frames').getElementsByTagName('g');\n"
" for(var i=0;i<gs.length;i++){var g=gs[i],r=g.getElementsByTagName('rect')[0],\n"
"  ti=g.getElementsByTagName('title')[0].textContent,\n"
"  f={g:g,r:r,t:g.getElementsByTagName('text')[0],ti:ti,name:ti.replace(/ \\([^()]*\\)$/,''),\n"
"   x:+r.getAttribute('x'),w:+r.getAttribute('width'),y:+r.getAttribute('y'),\n"
"   fill:r.getAttribute('fill')};\n"
"  fr.push(f);g.onclick=zoomer(f);g.onmouseover=shower(f);g.onmouseout=function(){det.textContent=' '};}\n"
" var q=location.search.match(/[?&]s=([^&]*)/);if(q)search(decodeURIComponent(q[1]));}\n"
"function zoomer(f){return function(){zoom(f)}}\n"
"function shower(f){return function(){det.textContent=f.ti}}\n"
"function label(f,x,w){var n=Math.floor((w-6)/7);f.t.setAttribute('x',x+3);\n"
" f.t.textContent=n<3?'':f.name.length<=n?f.name:f.name.substr(0,n-2)+'..'}\n"
"function place(f,x,w,o){f.g.style.display='';f.r.setAttribute('x',x);\n"
" f.r.setAttribute('width',w);f.g.style.opacity=o;label(f,x,w)}\n"
"function zoom(z){var s=(W-2*P)/z.w,e=0.001;unz.style.display='';\n"
" fr.forEach(function(f){\n"
"  if(f.y<=z.y&&f.x>=z.x-e&&f.x+f.w<=z.x+z.w+e)place(f,P+(f.x-z.x)*s,f.w*s,1);\n"
"  else if(f.y>z.y&&f.x<=z.x+e&&f.x+f.w>=z.x+z.w-e)place(f,P,W-2*P,0.6);\n"
"  else f.g.style.display='none';})}\n"
"function unzoom(){unz.style.display='none';fr.forEach(function(f){place(f,f.x,f.w,1)})}\n"
"function prompt_search(){var t=prompt('Search frames (regular expression)','');\n"
" if(t!==null)search(t)}\n"
"function search(t){var re,iv=[],tot=0,end=-1;try{re=new RegExp(t)}catch(e){return}\n"
" fr.forEach(function(f){if(t!==''&&re.test(f.name)){f.r.setAttribute('fill','rgb(230,0,230)');\n"
"  iv.push([f.x,f.x+f.w])}else f.r.setAttribute('fill',f.fill)});\n"
" iv.sort(function(a,b){return a[0]-b[0]});\n"
" iv.forEach(function(v){if(v[1]>end){tot+=v[1]-Math.max(v[0],end);end=v[1]}});\n"
" mat.textContent=t===''?' ':'Matched: '+(100*tot/(W-2*P)).toFixed(1)+'%'}\n"
"init();\n";

int fr_flame__svg(struct fr_folded *fo, const struct fr_flame_opts *o, FILE *f)
{
	struct tree t = { 0 };
	struct draw d;
	int err;
	uint32_t width = o->width ? o->width : 1200;

	if (fr_grow(&t.nodes, &t.cap, 1, sizeof(*t.nodes), 256))
		return -ENOMEM;
	t.nodes[0] = (struct node){ "all", 0, 0, 0 };
	t.nr = 1;
	err = fr_folded__for_each(fo, add_stack, &t);
	if (!err)
		err = sort_children(&t);
	if (err) {
		free(t.nodes);
		return err;
	}
	d = (struct draw){ f, &t, t.nodes[0].weight ? (width - 2.0 * PAD) / (double)t.nodes[0].weight
				 : 0, TOP + BOTTOM + (t.depth + 1) * FRAME_H, o->unit, o,
			   calloc(t.depth + 2, sizeof(*d.path)) };
	if (!d.path) {
		free(t.nodes);
		return -ENOMEM;
	}
	if (o->standalone)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", f);
	fprintf(f, "<svg id=\"flame\" version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n<style>\n"
		"#flame text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}\n"
		"#flame #frames g{cursor:pointer} #flame #frames g:hover rect{stroke:#000;stroke-width:0.5}\n"
		"#flame #title{font-size:17px;text-anchor:middle}\n"
		"#flame .ctl{cursor:pointer;fill:#333}\n</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#f8f8f0\"/>\n"
		"<text id=\"title\" x=\"%u\" y=\"24\">", width, d.height, width, d.height, width,
		d.height, width / 2);
	fr_xml__string(f, o->title ? o->title : "Flame Graph");
	fprintf(f, "</text>\n<text id=\"unzoom\" class=\"ctl\" x=\"%d\" y=\"24\" style=\"display:none\" "
		"onclick=\"unzoom()\">Reset Zoom</text>\n<text id=\"search\" class=\"ctl\" x=\"%u\" "
		"y=\"24\" onclick=\"prompt_search()\">Search</text>\n<text id=\"matched\" x=\"%u\" "
		"y=\"%u\"> </text>\n<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n<g id=\"frames\">\n",
		PAD, width - PAD - 60, width - PAD - 140, d.height - 10, PAD, d.height - 10);
	if (t.nodes[0].weight)
		draw(&d, 0, 0, PAD);
	fprintf(f, "</g>\n<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
		script);
	free(d.path);
	free(t.nodes);
	return ferror(f) ? -EIO : 0;
}
