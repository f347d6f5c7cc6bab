/* Unit tests for strbuf and the text helpers in util. */
#include "config.h"

#include "strbuf.h"
#include "util.h"
#include "tap.h"

#include <stdlib.h>

int main(void)
{
	struct strbuf sb;
	char out[64];

	strbuf_init(&sb);
	strbuf_printf(&sb, "%d-%s", 42, "x");
	is_str(sb.data, "42-x", "printf appends");
	strbuf_reset(&sb);
	strbuf_json_string(&sb, "a\"b\\c\n\x1b[31m", 11);
	is_str(sb.data, "\"a\\\"b\\\\c\\n\\u001b[31m\"", "json escapes quotes, backslashes, controls");
	strbuf_reset(&sb);
	strbuf_json_string(&sb, "\xc3\xa9\xff", 3);
	is_str(sb.data, "\"\xc3\xa9\\ufffd\"", "json keeps valid UTF-8 and replaces invalid bytes");
	strbuf_reset(&sb);
	strbuf_json_double(&sb, 1.5);
	strbuf_putc(&sb, ' ');
	strbuf_json_double(&sb, 1.0 / 0.0);
	is_str(sb.data, "1.500 0", "numbers: fractions and non-finite");
	strbuf_free(&sb);

	is_str(util_sanitize("ok\x1b]0;pwned\x07", 12, out, sizeof out), "ok?]0;pwned?",
		"sanitize replaces terminal escapes");
	is_str(util_sanitize("\xc2\x9b" "2J", 4, out, sizeof out), "??2J", "sanitize replaces C1 CSI");
	is_str(util_sanitize("caf\xc3\xa9", 5, out, sizeof out), "caf\xc3\xa9", "sanitize keeps UTF-8");
	is_str(util_sanitize("abcdef", 6, out, 4), "abc", "sanitize truncates to the buffer");
	is_str(util_display_url("file:///srv/app.js"), "/srv/app.js", "file URLs shown as paths");
	is_str(util_display_url("node:internal/timers"), "node:internal/timers", "other URLs kept");
	return done_testing();
}
