/* fuzz_settings: the settings file parser on hostile input.
 *
 * The input is the text of a settings file. After settings_parse() the values must be within
 * the ranges the program relies on; the text settings_format() writes for them must read back
 * with no bad line, and formatting that again must give the same text (what ntop-js saves,
 * it loads unchanged). */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TARGET "fuzz_settings"
#include "fuzz_check.h"

static void check_ranges(const struct settings *c)
{
	CHECK(c->view.sort < COL_COUNT, "sort %d", (int)c->view.sort);
	CHECK(c->view.mode < MODE_COUNT, "mode %d", (int)c->view.mode);
	CHECK(c->view.threshold_pct >= 0 && c->view.threshold_pct <= 100, "threshold %g",
		c->view.threshold_pct);
	CHECK(c->delay_s >= 0.05 && c->delay_s <= 3600, "delay %g", c->delay_s);
	CHECK(c->interval_us >= 100 && c->interval_us <= 1000000, "interval %ld", c->interval_us);
	CHECK(memchr(c->view.filter, '\0', sizeof c->view.filter) != NULL, "filter unterminated");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct settings c, c2;
	char *text, *text2;
	size_t bad = 0, lines = 1;

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	settings_defaults(&c);
	settings_parse(&c, (const char *)data, size, &bad);
	CHECK(bad <= lines, "%zu bad of %zu lines", bad, lines);
	check_ranges(&c);

	text = settings_format(&c);
	settings_defaults(&c2);
	settings_parse(&c2, text, strlen(text), &bad);
	CHECK(bad == 0, "%zu bad lines in what settings_format wrote:\n%s", bad, text);
	check_ranges(&c2);
	text2 = settings_format(&c2);
	CHECK(strcmp(text, text2) == 0, "the settings changed on the way back:\n%s---\n%s", text,
		text2);
	CHECK(c.view.sort == c2.view.sort && c.view.mode == c2.view.mode &&
		c.view.reverse == c2.view.reverse && c.view.color == c2.view.color &&
		c.view.hide_internals == c2.view.hide_internals &&
		c.view.hide_node_modules == c2.view.hide_node_modules &&
		c.interval_us == c2.interval_us, "a setting changed on the way back");
	free(text);
	free(text2);
	return 0;
}
