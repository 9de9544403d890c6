/* bench/frstat.c: the harness's statistics: median, mean, stddev (Welford), ratios,
 * and Student's t 95% intervals of differences from the baseline and the floor.
 */

/*
 * Reads "KEY CONFIG VALUE" lines (or "CONFIG VALUE"); per KEY and CONFIG prints
 * n, median, mean, stddev, min, max, the ratio of medians to the baseline, and
 * the difference of the means from the baseline and from the floor in percent
 * of theirs, each with a Student's t 95% interval (pooled s, as ministat).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

#define EXIT_USAGE 64
#define MAX_TOKEN 128

static const char *prog = "frstat";

struct sample_set {
	char key[MAX_TOKEN], config[MAX_TOKEN];
	double *v;
	size_t n, cap;
	double mean, m2;   /* Welford */
	double median;
};

struct table {
	struct sample_set *s;
	size_t n, cap;
};

/* Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom. */
static const double t95[] = {
	0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
};

/* Beyond 30: linear in 1/df between 30, 40, 60, 120 and infinity. */
static double t_quantile(size_t df)
{
	static const double dfs[] = { 30, 40, 60, 120, 1e300 };
	static const double ts[] = { 2.042, 2.021, 2.000, 1.980, 1.960 };

	if (df == 0)
		return NAN;
	if (df <= 30)
		return t95[df];
	for (int i = 0; i < 4; i++) {
		if ((double)df <= dfs[i + 1]) {
			double a = 1 / dfs[i], b = 1 / dfs[i + 1], x = 1 / (double)df;

			return ts[i] + (ts[i + 1] - ts[i]) * (a - x) / (a - b);
		}
	}
	return 1.960;
}

static void die(const char *what)
{
	fprintf(stderr, "%s: %s\n", prog, what);
	exit(2);
}

static struct sample_set *find_or_add(struct table *t, const char *key, const char *config)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->s[i].key, key) && !strcmp(t->s[i].config, config))
			return &t->s[i];
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct sample_set *n = realloc(t->s, cap * sizeof(*n));

		if (!n)
			die("out of memory");
		t->s = n;
		t->cap = cap;
	}
	memset(&t->s[t->n], 0, sizeof(t->s[t->n]));
	snprintf(t->s[t->n].key, MAX_TOKEN, "%s", key);
	snprintf(t->s[t->n].config, MAX_TOKEN, "%s", config);
	return &t->s[t->n++];
}

static void add_value(struct sample_set *s, double x)
{
	double d;

	if (fr_grow(&s->v, &s->cap, s->n + 1, sizeof(*s->v), 16))
		die("out of memory");
	s->v[s->n++] = x;
	d = x - s->mean;
	s->mean += d / (double)s->n;
	s->m2 += d * (x - s->mean);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double variance(const struct sample_set *s)
{
	return s->n > 1 ? s->m2 / (double)(s->n - 1) : 0;
}

/* One line: "KEY CONFIG VALUE" or "CONFIG VALUE"; '#' starts a comment. */
static void read_line(struct table *t, char *line, const char *file, size_t lineno)
{
	char *tok[4], *save = NULL, *end;
	int n = 0;
	double v;

	line[strcspn(line, "#\n")] = '\0';
	for (char *p = strtok_r(line, " \t", &save); p; p = strtok_r(NULL, " \t", &save)) {
		if (n == 4)
			break;
		tok[n++] = p;
	}
	if (n == 0)
		return;
	if (n < 2 || n > 3 || strlen(tok[0]) >= MAX_TOKEN || strlen(tok[n - 2]) >= MAX_TOKEN) {
		fprintf(stderr, "%s: %s:%zu: expected KEY CONFIG VALUE or CONFIG VALUE\n", prog,
			file, lineno);
		exit(2);
	}
	errno = 0;
	v = strtod(tok[n - 1], &end);
	if (errno || end == tok[n - 1] || *end || !isfinite(v)) {
		fprintf(stderr, "%s: %s:%zu: not a number: '%s'\n", prog, file, lineno, tok[n - 1]);
		exit(2);
	}
	add_value(find_or_add(t, n == 3 ? tok[0] : "-", tok[n - 2]), v);
}

static void read_file(struct table *t, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL;
	size_t cap = 0, lineno = 0;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		exit(2);
	}
	while (getline(&line, &cap, f) >= 0)
		read_line(t, line, path, ++lineno);
	free(line);
	if (f != stdin)
		fclose(f);
}

static const struct sample_set *lookup(const struct table *t, const char *key, const char *cfg)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->s[i].key, key) && !strcmp(t->s[i].config, cfg))
			return &t->s[i];
	return NULL;
}

/* Difference of means of s from r, in percent of r's mean, and its 95% half
 * interval (Student's t, pooled standard deviation). */
static bool diff_pct(const struct sample_set *s, const struct sample_set *r, double *d,
		     double *ci)
{
	size_t df;
	double sp;

	if (!r || r == s || r->mean == 0 || s->n < 2 || r->n < 2)
		return false;
	df = s->n + r->n - 2;
	sp = sqrt(((double)(s->n - 1) * variance(s) + (double)(r->n - 1) * variance(r)) /
		  (double)df);
	*d = (s->mean - r->mean) / r->mean * 100;
	*ci = t_quantile(df) * sp * sqrt(1.0 / (double)s->n + 1.0 / (double)r->n) / r->mean * 100;
	return true;
}

enum col { COL_RATIO, COL_PCT, COL_CI };

static void print_opt(bool ok, double v, enum col k, bool csv, const char *sep)
{
	if (ok && (csv || k == COL_RATIO))
		printf(k == COL_RATIO ? "%.4f" : "%.3f", v);
	else if (ok && k == COL_PCT)
		printf("%+.2f%%", v);
	else if (ok)
		printf("+-%.2f%%", v);
	fputs(sep, stdout);
}

static void print_row(const struct table *t, const struct sample_set *s, const char *base,
		      const char *floor_cfg, bool csv)
{
	const struct sample_set *b = lookup(t, s->key, base), *f = lookup(t, s->key, floor_cfg);
	double db = 0, cb = 0, df = 0, cf = 0;
	bool hb = diff_pct(s, b, &db, &cb), hf = diff_pct(s, f, &df, &cf);
	bool hr = b && b->median != 0, hm = f && f->median != 0 && f != s;
	const char *sep = csv ? "," : " ";

	if (csv)
		fprintf(stdout, "%s,%s,%zu,%.6g,%.6g,%.6g,%.6g,%.6g,", s->key, s->config, s->n,
			s->median, s->mean, sqrt(variance(s)), s->v[0], s->v[s->n - 1]);
	else
		fprintf(stdout, "%-24s %-18s %3zu %10.4g %10.4g %9.3g ", s->key, s->config, s->n,
			s->median, s->mean, sqrt(variance(s)));
	print_opt(hr, hr ? s->median / b->median : 0, COL_RATIO, csv, sep);
	print_opt(hb, db, COL_PCT, csv, sep);
	print_opt(hb, cb, COL_CI, csv, sep);
	print_opt(hm, hm ? (s->median / f->median - 1) * 100 : 0, COL_PCT, csv, sep);
	print_opt(hf, df, COL_PCT, csv, sep);
	print_opt(hf, cf, COL_CI, csv, "\n");
}

/* ---- paired: configurations against a reference, round by round ---- */

/* One "KEY ROUND CONFIG VALUE" line. */
struct obs {
	char key[MAX_TOKEN], config[MAX_TOKEN];
	long round;
	double v;
};

static void read_obs(struct obs **o, size_t *n, size_t *cap, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL, *tok[5], *save, *end;
	size_t lcap = 0, lineno = 0;

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		exit(2);
	}
	while (getline(&line, &lcap, f) >= 0) {
		struct obs x;
		int k = 0;

		lineno++;
		line[strcspn(line, "#\n")] = '\0';
		save = NULL;
		for (char *p = strtok_r(line, " \t", &save); p && k < 5; p = strtok_r(NULL, " \t", &save))
			tok[k++] = p;
		if (k == 0)
			continue;
		errno = 0;
		if (k != 4 || strlen(tok[0]) >= MAX_TOKEN || strlen(tok[2]) >= MAX_TOKEN ||
		    (x.round = strtol(tok[1], &end, 10), errno || *end || end == tok[1]) ||
		    (x.v = strtod(tok[3], &end), errno || *end || end == tok[3] || !isfinite(x.v))) {
			fprintf(stderr, "%s: %s:%zu: expected KEY ROUND CONFIG VALUE\n", prog, path,
				lineno);
			exit(2);
		}
		strcpy(x.key, tok[0]);
		strcpy(x.config, tok[2]);
		if (fr_grow(o, cap, *n + 1, sizeof(**o), 256))
			die("out of memory");
		(*o)[(*n)++] = x;
	}
	free(line);
	if (f != stdin)
		fclose(f);
}

static const struct obs *find_obs(const struct obs *o, size_t n, const char *key, long round,
				  const char *config)
{
	for (size_t i = 0; i < n; i++)
		if (o[i].round == round && !strcmp(o[i].key, key) && !strcmp(o[i].config, config))
			return &o[i];
	return NULL;
}

/* Per KEY and CONFIG: in each round that has it, REF and BASE, the
 * difference CONFIG - REF in points of that round's BASE; their median, and
 * their mean with its Student's t 95% interval (paired: what moves a whole
 * round, as this host's slow and fast modes do, cancels). */
static int paired(int nfiles, char **files, const char *ref, const char *base)
{
	struct obs *o = NULL;
	size_t n = 0, cap = 0;

	if (!nfiles)
		read_obs(&o, &n, &cap, "-");
	for (int i = 0; i < nfiles; i++)
		read_obs(&o, &n, &cap, files[i]);
	printf("%-24s %-24s %3s %10s %10s %9s\n", "key", "config - ref (pt of base)", "n",
	       "median", "mean", "ci95");
	for (size_t i = 0; i < n; i++) {
		struct sample_set d = { 0 };
		bool seen = false;

		if (!strcmp(o[i].config, ref) || !strcmp(o[i].config, base))
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(o[j].key, o[i].key) && !strcmp(o[j].config, o[i].config);
		if (seen)
			continue;
		for (size_t j = i; j < n; j++) {
			const struct obs *r, *b;

			if (strcmp(o[j].key, o[i].key) || strcmp(o[j].config, o[i].config))
				continue;
			r = find_obs(o, n, o[j].key, o[j].round, ref);
			b = find_obs(o, n, o[j].key, o[j].round, base);
			if (r && b && b->v != 0)
				add_value(&d, (o[j].v - r->v) / b->v * 100);
		}
		if (d.n < 2) {
			free(d.v);
			continue;
		}
		qsort(d.v, d.n, sizeof(*d.v), cmp_double);
		d.median = d.n % 2 ? d.v[d.n / 2] : (d.v[d.n / 2 - 1] + d.v[d.n / 2]) / 2;
		printf("%-24s %-24s %3zu %+10.2f %+10.2f %9.2f\n", o[i].key, o[i].config, d.n,
		       d.median, d.mean, t_quantile(d.n - 1) * sqrt(variance(&d) / (double)d.n));
		free(d.v);
	}
	free(o);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: %s [-c] [-b BASELINE] [-f FLOOR] [FILE...]\n"
		"       %s -p REF [-b BASELINE] [FILE...]\n"
		"Reads 'KEY CONFIG VALUE' or 'CONFIG VALUE' lines (stdin without FILE).\n"
		"-c: CSV with columns key,config,n,median,mean,stddev,min,max,ratio_median,\n"
		"    diff_pct,diff_ci95_pct,excess_median_pct,excess_pct,excess_ci95_pct\n"
		"    (diff: mean vs the BASELINE config of the same key; excess: vs FLOOR)\n"
		"-p REF: reads 'KEY ROUND CONFIG VALUE' lines; per key and config, round by\n"
		"    round, (CONFIG - REF) in points of BASELINE: median, mean, Student's t\n"
		"    95%% half interval\n", prog, prog);
	exit(EXIT_USAGE);
}

int main(int argc, char **argv)
{
	struct table t = { 0 };
	const char *base = "baseline", *floor_cfg = "floor", *ref = NULL;
	bool csv = false;
	int c;

	while ((c = getopt(argc, argv, "cb:f:p:h")) != -1) {
		switch (c) {
		case 'c': csv = true; break;
		case 'b': base = optarg; break;
		case 'f': floor_cfg = optarg; break;
		case 'p': ref = optarg; break;
		default: usage();
		}
	}
	if (ref)
		return paired(argc - optind, argv + optind, ref, base);
	if (optind == argc)
		read_file(&t, "-");
	for (int i = optind; i < argc; i++)
		read_file(&t, argv[i]);
	for (size_t i = 0; i < t.n; i++) {
		struct sample_set *s = &t.s[i];

		qsort(s->v, s->n, sizeof(*s->v), cmp_double);
		s->median = s->n % 2 ? s->v[s->n / 2] : (s->v[s->n / 2 - 1] + s->v[s->n / 2]) / 2;
	}
	if (csv)
		printf("key,config,n,median,mean,stddev,min,max,ratio_median,diff_pct,"
		       "diff_ci95_pct,excess_median_pct,excess_pct,excess_ci95_pct\n");
	else
		printf("%-24s %-18s %3s %10s %10s %9s %s\n", "key", "config", "n", "median", "mean",
		       "stddev", "ratio  diff+-ci95  excess(median) excess+-ci95");
	for (size_t i = 0; i < t.n; i++)
		print_row(&t, &t.s[i], base, floor_cfg, csv);
	for (size_t i = 0; i < t.n; i++)
		free(t.s[i].v);
	free(t.s);
	return 0;
}
