/* settings.c: see settings.h. */
#include "config.h"

#include "settings.h"
#include "atomicfile.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const sort_names[COL_COUNT] = {
	[COL_SELF_PCT] = "self", [COL_TOTAL_PCT] = "total", [COL_SELF_TIME] = "self-time",
	[COL_TOTAL_TIME] = "total-time", [COL_NAME] = "name", [COL_LOCATION] = "location",
	[COL_DSELF_PCT] = "delta-self", [COL_DTOTAL_PCT] = "delta-total",
};
static const char *const mode_names[MODE_COUNT] = {
	[MODE_WINDOW] = "window", [MODE_DECAYED] = "decayed", [MODE_CUMULATIVE] = "cumulative",
};

const char *settings_sort_name(enum view_column col)
{
	return col < COL_COUNT ? sort_names[col] : "self";
}

int settings_sort_parse(const char *name, enum view_column *col)
{
	int i;

	/* (a change against a baseline is no sort to start with: no baseline is pinned then) */
	for (i = 0; i < COL_DSELF_PCT; i++)
		if (strcmp(name, sort_names[i]) == 0) {
			*col = (enum view_column)i;
			return 0;
		}
	return -1;
}

const char *settings_mode_name(enum model_mode mode)
{
	return mode < MODE_COUNT ? mode_names[mode] : "window";
}

int settings_mode_parse(const char *name, enum model_mode *mode)
{
	int i;

	for (i = 0; i < MODE_COUNT; i++)
		if (strcmp(name, mode_names[i]) == 0) {
			*mode = (enum model_mode)i;
			return 0;
		}
	return -1;
}

void settings_defaults(struct settings *c)
{
	memset(c, 0, sizeof *c);
	c->view.sort = COL_SELF_PCT;
	c->view.mode = MODE_WINDOW;
	c->view.color = true;
	c->delay_s = 1.0;
	c->interval_us = 1000;
}

static int parse_bool(const char *v, bool *out)
{
	if (strcmp(v, "1") == 0 || strcmp(v, "true") == 0 || strcmp(v, "yes") == 0)
		*out = true;
	else if (strcmp(v, "0") == 0 || strcmp(v, "false") == 0 || strcmp(v, "no") == 0)
		*out = false;
	else
		return -1;
	return 0;
}

static int parse_num(const char *v, double min, double max, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(d) || d < min || d > max)
		return -1;
	*out = d;
	return 0;
}

static int settings_set(struct settings *c, const char *key, const char *val)
{
	double d;

	if (strcmp(key, "version") == 0)
		return 0;
	if (strcmp(key, "sort") == 0)
		return settings_sort_parse(val, &c->view.sort);
	if (strcmp(key, "reverse") == 0)
		return parse_bool(val, &c->view.reverse);
	if (strcmp(key, "mode") == 0)
		return settings_mode_parse(val, &c->view.mode);
	if (strcmp(key, "hide_internals") == 0)
		return parse_bool(val, &c->view.hide_internals);
	if (strcmp(key, "hide_node_modules") == 0)
		return parse_bool(val, &c->view.hide_node_modules);
	if (strcmp(key, "color") == 0)
		return parse_bool(val, &c->view.color);
	if (strcmp(key, "filter") == 0) {
		if (strlen(val) >= sizeof c->view.filter)
			return -1;
		strcpy(c->view.filter, val);
		return 0;
	}
	if (strcmp(key, "threshold") == 0) {
		if (parse_num(val, 0, 100, &d) < 0)
			return -1;
		c->view.threshold_pct = d;
		return 0;
	}
	if (strcmp(key, "delay") == 0) {
		if (parse_num(val, 0.05, 3600, &d) < 0)
			return -1;
		c->delay_s = d;
		return 0;
	}
	if (strcmp(key, "interval") == 0) {
		if (parse_num(val, 100, 1000000, &d) < 0)
			return -1;
		c->interval_us = (long)d;
		return 0;
	}
	return -1;
}

void settings_parse(struct settings *c, const char *text, size_t len, size_t *bad)
{
	size_t pos = 0;

	*bad = 0;
	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos;
		char buf[512], *eq, *key, *val, *end;

		pos += n + (nl ? 1 : 0);
		if (n >= sizeof buf) {
			(*bad)++;
			continue;
		}
		memcpy(buf, line, n);
		buf[n] = '\0';
		key = buf + strspn(buf, " \t\r");
		if (*key == '\0' || *key == '#')
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			(*bad)++;
			continue;
		}
		*eq = '\0';
		val = eq + 1;
		for (end = eq; end > key && strchr(" \t", end[-1]); end--)
			end[-1] = '\0';
		/* \r too, as at the end: a value read back must not differ from what was written */
		val += strspn(val, " \t\r");
		for (end = val + strlen(val); end > val && strchr(" \t\r", end[-1]); end--)
			end[-1] = '\0';
		if (settings_set(c, key, val) < 0)
			(*bad)++;
	}
}

char *settings_format(const struct settings *c)
{
	struct strbuf sb;

	strbuf_init(&sb);
	strbuf_puts(&sb, "# ntop-js settings, written when they change in the live view.\n");
	strbuf_printf(&sb, "version=%d\n", SETTINGS_VERSION);
	strbuf_printf(&sb, "sort=%s\n", settings_sort_name(c->view.sort));
	strbuf_printf(&sb, "reverse=%d\n", c->view.reverse);
	strbuf_printf(&sb, "mode=%s\n", settings_mode_name(c->view.mode));
	strbuf_printf(&sb, "hide_internals=%d\n", c->view.hide_internals);
	strbuf_printf(&sb, "hide_node_modules=%d\n", c->view.hide_node_modules);
	strbuf_printf(&sb, "threshold=%g\n", c->view.threshold_pct);
	/* A filter is one line: a newline in it would be read back as another key. */
	strbuf_puts(&sb, "filter=");
	for (const char *p = c->view.filter; *p; p++)
		strbuf_putc(&sb, *p == '\n' || *p == '\r' ? ' ' : *p);
	strbuf_putc(&sb, '\n');
	strbuf_printf(&sb, "color=%d\n", c->view.color);
	strbuf_printf(&sb, "delay=%g\n", c->delay_s);
	strbuf_printf(&sb, "interval=%ld\n", c->interval_us);
	return sb.data;
}

char *settings_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg && xdg[0] == '/')
		return xasprintf("%s/ntop-js/config", xdg);
	if (home && home[0])
		return xasprintf("%s/.config/ntop-js/config", home);
	return NULL;
}

int settings_load(struct settings *c, const char *path, char **cause)
{
	FILE *f = fopen(path, "r");
	char buf[16384];
	size_t n, bad;

	if (!f) {
		if (errno == ENOENT)
			return 0;
		*cause = xasprintf("cannot read %s: %s.", path, strerror(errno));
		return -1;
	}
	n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	settings_parse(c, buf, n, &bad);
	if (bad) {
		*cause = xasprintf("%s: %zu setting%s not understood and ignored.", path, bad,
			bad == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

/* mkdir -p for the directory part of path. */
static int settings_mkdirs(const char *path)
{
	char *dir = xstrdup(path), *p;
	int rc = 0;

	for (p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			rc = -1;
		*p = '/';
	}
	free(dir);
	return rc;
}

int settings_save(const struct settings *c, const char *path, char **cause)
{
	char *text = settings_format(c);
	int rc;

	settings_mkdirs(path);
	rc = atomic_file_save(path, text, strlen(text), cause);
	free(text);
	return rc;
}
