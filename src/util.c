/* src/util.c: the message sink behind fr_err/fr_info, names escaped for a
 * line of text, and strict number parsing for the command line (end pointer, range and overflow checks, no
 * sign, no leading blanks).
 */
#include "config.h"
#include "src/util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static fr_msg_fn msg_sink;

void fr_msg__set_sink(fr_msg_fn fn)
{
	msg_sink = fn;
}

void fr_err(const char *what, const char *fmt, ...)
{
	va_list ap;

	if (!msg_sink)
		return;
	va_start(ap, fmt);
	msg_sink(false, what, fmt, ap);
	va_end(ap);
}

void fr_info(const char *fmt, ...)
{
	va_list ap;

	if (!msg_sink)
		return;
	va_start(ap, fmt);
	msg_sink(true, NULL, fmt, ap);
	va_end(ap);
}

void fr_text__put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

int fr_parse__u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int fr_parse__size(const char *s, uint64_t *out)
{
	unsigned long long v;
	uint64_t mult = 1;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	switch (*end) {
	case 'k': case 'K': mult = 1ull << 10; end++; break;
	case 'm': case 'M': mult = 1ull << 20; end++; break;
	case 'g': case 'G': mult = 1ull << 30; end++; break;
	default: break;
	}
	if (mult > 1 && *end == 'i')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return -EINVAL;
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*out = v * mult;
	return 0;
}

int fr_parse__pages(const char *s, size_t page_size, size_t max_pages, size_t *out)
{
	uint64_t v;
	int err;

	if (s && *s && isdigit((unsigned char)s[strlen(s) - 1])) {
		err = fr_parse__u64(s, 1, max_pages, &v);
	} else {
		err = fr_parse__size(s, &v);
		if (!err && (v % page_size || v == 0))
			return -EINVAL;
		v /= page_size;
		if (!err && (v < 1 || v > max_pages))
			err = -ERANGE;
	}
	if (err)
		return err;
	if (v & (v - 1))
		return -EDOM;
	*out = (size_t)v;
	return 0;
}

int fr_parse__pages_up(const char *s, size_t page_size, size_t max_pages, size_t *out)
{
	uint64_t v, p = 1;
	int err;

	if (s && *s && isdigit((unsigned char)s[strlen(s) - 1])) {
		err = fr_parse__u64(s, 1, max_pages, &v);
	} else {
		err = fr_parse__size(s, &v);
		if (!err && !v)
			err = -EINVAL;
		if (!err)
			v = v / page_size + (v % page_size != 0);
	}
	if (err)
		return err;
	while (p < v)
		p <<= 1;
	if (p > max_pages)
		return -ERANGE;
	*out = (size_t)p;
	return 0;
}

int fr_parse__pids(const char *s, int **out, size_t *nr)
{
	int *pids = NULL;
	size_t n = 0, cap = 0;
	char *copy, *tok, *save = NULL;
	int err = 0;

	if (!s || !*s)
		return -EINVAL;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		err = fr_parse__u64(tok, 1, 4194304, &v);
		if (err)
			break;
		if (fr_grow(&pids, &cap, n + 1, sizeof(*pids), 8)) {
			err = -ENOMEM;
			break;
		}
		pids[n++] = (int)v;
	}
	/* "1,,2" or a trailing comma leaves an empty token strtok skips: refuse it */
	if (!err && (strstr(s, ",,") || s[0] == ',' || s[strlen(s) - 1] == ','))
		err = -EINVAL;
	free(copy);
	if (err || !n) {
		free(pids);
		return err ? err : -EINVAL;
	}
	*out = pids;
	*nr = n;
	return 0;
}

int fr_parse__duration(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; double mult; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
		{ "", 1e9 },
	};
	double v, max = 7 * 24 * 3600e9;
	char *end;

	if (!s || !(isdigit((unsigned char)s[0]) || s[0] == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno == ERANGE)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		v *= units[i].mult;
		if (!(v >= 0) || v > max)
			return -ERANGE;
		*ns = (uint64_t)(v + 0.5);
		return 0;
	}
	return -EINVAL;
}

int fr_parse__rate(const char *s, uint64_t *n, uint64_t *period_ns)
{
	const char *slash = s ? strchr(s, '/') : NULL;
	char num[32];
	uint64_t v, p;
	int err;

	if (!slash || (size_t)(slash - s) >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, (size_t)(slash - s));
	num[slash - s] = '\0';
	err = fr_parse__u64(num, 1, 1000000, &v);
	if (!err)
		err = fr_parse__duration(slash + 1, &p);
	if (!err && p == 0)
		err = -ERANGE;
	if (err)
		return err;
	*n = v;
	*period_ns = p;
	return 0;
}

int fr_file__slurp(const char *path, size_t max, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	struct stat st;
	ssize_t n = 1;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -EINVAL;
	else if ((uint64_t)st.st_size > max)
		err = -EFBIG;
	else if (!(*buf = malloc((size_t)st.st_size + 1)))
		err = -ENOMEM;
	while (!err && *len < (size_t)st.st_size && (n = read(fd, *buf + *len, (size_t)st.st_size - *len)) > 0)
		*len += (size_t)n;
	if (!err && n < 0)
		err = -errno;
	close(fd);
	if (err) {
		free(*buf);
		*buf = NULL;
		*len = 0;
		return err;
	}
	(*buf)[*len] = '\0';   /* a file that shrank meanwhile: what was there */
	return 0;
}
