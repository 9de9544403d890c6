/* src/report/fmt/flame.c: --format=flamegraph, interactive flame graphs drawn
 * as one self-contained SVG (frames as rects with <title>, search, click to
 * zoom; one graph per event, one under the other) from the folded stacks
 * (folded.c); also inlined by --format=html.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/util.h"
#include "src/report/fmt/fmt.h"
#include "src/report/pass/pass.h"

#define FRAME_H 16     /* px per level */
#define PAD 10         /* left and right */
#define TOP 36         /* title and controls */
#define BOTTOM 30      /* the details line */
#define MIN_W 0.1      /* frames narrower than this (px) are left out, as
			* flamegraph.pl's minwidth: the height follows the rest */
#define MAX_FRAMES 43  /* a deeper stack draws its first 42 and a marker: the
			* graph fits 786 px, the root on the first screen */
static const char cut_marker[] = "[deeper frames cut]";

struct node {
	const char *name;
	uint64_t weight;
	uint32_t child, next;   /* first child, next sibling: index + 1, 0 none */
};

struct tree {
	struct node *nodes;
	size_t nr, cap;
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
		bool cut = n - i == MAX_FRAMES && i;   /* more below this one */

		at = child_of(t, (uint32_t)at, cut ? cut_marker : frames[i]->name);
		if (at < 0)
			return (int)at;
		t->nodes[at].weight += weight;
		if (cut)
			break;
	}
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
	const char **path;       /* names from the root to the frame drawn (o->fill): "all",
				  * the thread, at most MAX_FRAMES frames */
};

/* The depth of the deepest frame under i wide enough to be drawn. */
static uint32_t drawn_depth(const struct draw *d, uint32_t i)
{
	uint32_t deepest = 0;

	for (uint32_t c = d->t->nodes[i].child; c; c = d->t->nodes[c - 1].next) {
		uint32_t k;

		if ((double)d->t->nodes[c - 1].weight * d->scale < MIN_W)
			continue;
		k = 1 + drawn_depth(d, c - 1);
		deepest = k > deepest ? k : deepest;
	}
	return deepest;
}

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

/* Search, zoom and labels, per graph (each <svg class="flame"> of the
 * document); the frames' titles and rects are the data. */
static const char script[] =
"function flamegraph(s){if(s.flame)return;\n"
"var W=+s.getAttribute('width'),P=10,fr=[],q=function(c){return s.getElementsByClassName(c)[0]},\n"
" det=q('details'),mat=q('matched'),unz=q('unzoom');\n"
"function init(){fr=[];unz.style.display='none';\n"
" var gs=q('frames').getElementsByTagName('g');\n"
" for(var i=0;i<gs.length;i++){var g=gs[i],r=g.getElementsByTagName('rect')[0],\n"
"  ti=g.getElementsByTagName('title')[0].textContent,\n"
"  f={g:g,r:r,t:g.getElementsByTagName('text')[0],ti:ti,name:ti.replace(/ \\([^()]*\\)$/,''),\n"
"   x:+r.getAttribute('x'),w:+r.getAttribute('width'),y:+r.getAttribute('y'),\n"
"   fill:r.getAttribute('fill')};\n"
"  fr.push(f);g.onclick=zoomer(f);g.onmouseover=shower(f);g.onmouseout=function(){det.textContent=' '};}}\n"
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
"function search(t){var re,iv=[],tot=0,end=-1;try{re=new RegExp(t)}catch(e){return}\n"
" fr.forEach(function(f){if(t!==''&&re.test(f.name)){f.r.setAttribute('fill','rgb(230,0,230)');\n"
"  iv.push([f.x,f.x+f.w])}else f.r.setAttribute('fill',f.fill)});\n"
" iv.sort(function(a,b){return a[0]-b[0]});\n"
" iv.forEach(function(v){if(v[1]>end){tot+=v[1]-Math.max(v[0],end);end=v[1]}});\n"
" mat.textContent=t===''?' ':'Matched: '+(100*tot/(W-2*P)).toFixed(1)+'%'}\n"
"unz.onclick=unzoom;\n"
"q('search').onclick=function(){var t=prompt('Search frames (regular expression)','');if(t!==null)search(t)};\n"
"s.flame={init:init,search:search};init();\n"
"var m=location.search.match(/[?&]s=([^&]*)/);if(m)search(decodeURIComponent(m[1]))}\n"
"Array.prototype.forEach.call(document.getElementsByClassName('flame'),flamegraph);\n";

/* One graph as <svg class="flame">, at y in an outer SVG (y < 0: it is the
 * document itself), the script with it or not; its height in *height. */
static int graph(struct fr_folded *fo, const struct fr_flame_opts *o, FILE *f, int y,
		 bool with_script, uint32_t *height)
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
				 : 0, 0, o->unit, o, calloc(MAX_FRAMES + 4, sizeof(*d.path)) };
	if (!d.path) {
		free(t.nodes);
		return -ENOMEM;
	}
	d.height = TOP + BOTTOM + (drawn_depth(&d, 0) + 1) * FRAME_H;
	*height = d.height;
	if (o->standalone && y < 0)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", f);
	fputs("<svg class=\"flame\" version=\"1.1\"", f);
	if (y >= 0)
		fprintf(f, " x=\"0\" y=\"%d\"", y);
	fprintf(f, " width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n<style>\n"
		".flame text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}\n"
		".flame .frames g{cursor:pointer} .flame .frames g:hover rect{stroke:#000;stroke-width:0.5}\n"
		".flame .title{font-size:17px;text-anchor:middle}\n"
		".flame .ctl{cursor:pointer;fill:#333}\n</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#f8f8f0\"/>\n"
		"<text class=\"title\" x=\"%u\" y=\"24\">", width, d.height, width, d.height, width,
		d.height, width / 2);
	fr_xml__string(f, o->title ? o->title : "Flame Graph");
	fprintf(f, "</text>\n<text class=\"ctl unzoom\" x=\"%d\" y=\"24\" style=\"display:none\">"
		"Reset Zoom</text>\n<text class=\"ctl search\" x=\"%u\" y=\"24\">Search</text>\n"
		"<text class=\"matched\" x=\"%u\" y=\"%u\"> </text>\n<text class=\"details\" x=\"%d\" "
		"y=\"%u\"> </text>\n<g class=\"frames\">\n", PAD, width - PAD - 60, width - PAD - 140,
		d.height - 10, PAD, d.height - 10);
	if (t.nodes[0].weight)
		draw(&d, 0, 0, PAD);
	fputs("</g>\n", f);
	if (with_script)
		fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n", script);
	fputs("</svg>\n", f);
	free(d.path);
	free(t.nodes);
	return ferror(f) ? -EIO : 0;
}

int fr_flame__svg(struct fr_folded *fo, const struct fr_flame_opts *o, FILE *f)
{
	uint32_t height;

	return graph(fo, o, f, -1, true, &height);
}

int fr_flame__svgs(struct fr_folded *const *fo, const char *const *names, size_t n,
		   struct fr_folded *none, const struct fr_flame_opts *o, FILE *f)
{
	struct fr_flame_opts one = *o;
	uint32_t y = 0, height, width = o->width ? o->width : 1200;
	size_t graphs = 0, last = 0;
	char *buf = NULL, title[256];
	size_t len = 0;
	FILE *m;
	int err = 0;

	for (size_t i = 0; i < n; i++)
		if (fo[i]) {
			graphs++;
			last = i;
		}
	one.title = title;
	snprintf(title, sizeof(title), "Flame Graph%s%s", graphs ? ": " : "",
		 graphs && names[last] ? names[last] : "");
	if (graphs < 2)
		return fr_flame__svg(graphs ? fo[last] : none, &one, f);
	if (!(m = open_memstream(&buf, &len)))
		return -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		if (!fo[i])
			continue;
		snprintf(title, sizeof(title), "Flame Graph: %s", names[i] ? names[i] : "");
		err = graph(fo[i], &one, m, (int)y, false, &height);
		y += height;
	}
	if (fclose(m) && !err)
		err = -ENOMEM;
	if (!err) {
		if (o->standalone)
			fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", f);
		fprintf(f, "<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
			"xmlns=\"http://www.w3.org/2000/svg\">\n", width, y, width, y);
		fwrite(buf, 1, len, f);
		fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
			script);
		err = ferror(f) ? -EIO : 0;
	}
	free(buf);
	return err;
}
