/* Unit test: log_sanitize, the one way server text reaches a terminal:
 * controls and escapes made visible, the backslash doubled, UTF-8 kept
 * only when the locale is UTF-8 and only where printable, the length cut
 * at LOG_TEXT_MAX without splitting an escape or a character. Run once
 * with LC_ALL=C and once with LC_ALL=C.UTF-8. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "util/log.h"

static bool utf8;

static void is(const char *in, size_t len, const char *want)
{
	char buf[LOG_TEXT_SIZE];

	log_sanitize(buf, in, len);
	CHECK(strcmp(buf, want) == 0, "\"%s\" for \"%s\"", buf, want);
}

#define IS(lit, want) is(lit, sizeof(lit) - 1, want)

static void test_ascii(void)
{
	IS("", "");
	IS("plain text: 1920x1080 (ok)", "plain text: 1920x1080 (ok)");
	IS("\x1b]0;owned\x07\x1b[2J", "\\x1b]0;owned\\x07\\x1b[2J");
	IS("a\nvncfb: connected to 127.0.0.1:5900 (\"bank\", 1920x1080)",
	   "a\\nvncfb: connected to 127.0.0.1:5900 (\"bank\", 1920x1080)");
	IS("tab\there\rcr", "tab\\there\\rcr");
	IS("C:\\dir \\x1b", "C:\\\\dir \\\\x1b");
	IS("del\x7f nul\0end", "del\\x7f nul\\x00end");
	IS("\x01\x1f", "\\x01\\x1f");
}

static void test_utf8(void)
{
	/* Printable: kept in a UTF-8 locale. */
	IS("B\xc3\xbcro \xe6\x9d\xb1 \xf0\x9f\x98\x80",
	   utf8 ? "B\xc3\xbcro \xe6\x9d\xb1 \xf0\x9f\x98\x80"
		: "B\\xc3\\xbcro \\xe6\\x9d\\xb1 \\xf0\\x9f\\x98\\x80");
	/* C1 CSI, a bidi override, a line separator: never kept. */
	IS("\xc2\x9b" "2J", "\\xc2\\x9b2J");
	IS("a\xe2\x80\xae" "b", "a\\xe2\\x80\\xaeb");
	IS("\xe2\x80\xa8", "\\xe2\\x80\\xa8");
	/* Invalid: overlong, surrogate, above U+10FFFF, truncated, lone
	 * continuation. */
	IS("\xc0\xaf", "\\xc0\\xaf");
	IS("\xed\xa0\x80", "\\xed\\xa0\\x80");
	IS("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
	IS("\xe6\x9d", "\\xe6\\x9d");
	IS("\x80x", "\\x80x");
}

static void test_length(void)
{
	char in[1000], want[LOG_TEXT_SIZE];
	char buf[LOG_TEXT_SIZE];
	size_t i;

	memset(in, 'a', sizeof(in));
	/* Exactly the limit: no ellipsis. */
	memset(want, 'a', LOG_TEXT_MAX);
	want[LOG_TEXT_MAX] = '\0';
	is(in, LOG_TEXT_MAX, want);
	/* One more: cut, with the ellipsis. */
	strcpy(want + LOG_TEXT_MAX, "...");
	is(in, LOG_TEXT_MAX + 1, want);
	is(in, sizeof(in), want);
	/* An escape that would cross the limit is left out whole. */
	memset(in, 'a', sizeof(in));
	in[LOG_TEXT_MAX - 2] = '\x1b';
	memset(want, 'a', LOG_TEXT_MAX - 2);
	strcpy(want + LOG_TEXT_MAX - 2, "...");
	is(in, sizeof(in), want);
	/* Every byte escaped: 50 of them fit, and never more than the
	 * buffer. */
	memset(in, 0x1b, sizeof(in));
	log_sanitize(buf, in, sizeof(in));
	CHECK_EQ(strlen(buf), LOG_TEXT_MAX + 3);
	for (i = 0; i < LOG_TEXT_MAX; i += 4)
		CHECK(memcmp(buf + i, "\\x1b", 4) == 0);
	/* A character is not split either. */
	memset(in, 'a', sizeof(in));
	memcpy(in + LOG_TEXT_MAX - 1, "\xc3\xbc", 2);
	memset(want, 'a', LOG_TEXT_MAX - 1);
	strcpy(want + LOG_TEXT_MAX - 1, "...");
	if (utf8)
		is(in, sizeof(in), want);
}

/* The net under log_sanitize in log_msg itself: whatever a caller
 * formatted, every control character (below 0x20, and DEL) leaves the
 * line as '?', a space and the printable ones as they are. */
static void test_line_filter(void)
{
	char got[64];

	log_error("a%cb%cc%cd%ce f~", 0x7f, 0x1f, 0x01, 0x1b);
	log_take_error(got, sizeof(got));
	CHECK(!strcmp(got, "a?b?c?d?e f~"), "the log line: \"%s\"", got);
}

int main(void)
{
	const char *lc = getenv("LC_ALL");

	utf8 = lc && strstr(lc, "UTF-8");
	test_ascii();
	test_utf8();
	test_length();
	test_line_filter();
	return check_done(utf8 ? "log (UTF-8 locale)" : "log (C locale)");
}
