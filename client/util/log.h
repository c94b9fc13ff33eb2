/* Logging: one line per event on stderr, prefixed "vncfb: ", and the one
 * way text from the network is made fit to print. Any thread. */
#ifndef VNCFB_LOG_H
#define VNCFB_LOG_H

#include <stddef.h>

enum log_level {
	LOG_SILENT = -1,	/* nothing at all (fuzzing) */
	LOG_ERROR = 0,
	LOG_WARN,
	LOG_INFO,
	LOG_DEBUG,
};

void log_set_level(enum log_level level);
enum log_level log_get_level(void);
void log_msg(enum log_level level, const char *file, int line,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Text a server sent (a reason, the desktop name, a version string, a
 * library message quoting any of them) as it may be shown on a terminal:
 * printable ASCII as is, except the backslash, which is doubled, so that
 * what follows stays unambiguous; \n, \r, \t for those; every other
 * control byte, DEL, and each byte of a non-printable, invalid or
 * overlong character as \xNN (ESC is \x1b). Printable UTF-8 is kept
 * when the locale (LC_ALL, LC_CTYPE, LANG) is UTF-8, except the C1
 * controls, bidirectional and other invisible format characters, and the
 * line and paragraph separators; in any other locale every byte >= 0x80
 * is \xNN. At most LOG_TEXT_MAX bytes of that come out, never splitting
 * an escape or a character, followed by "..." when more was sent. Writes
 * into buf and returns it. */
#define LOG_TEXT_MAX 200
#define LOG_TEXT_SIZE (LOG_TEXT_MAX + sizeof("..."))
const char *log_sanitize(char buf[LOG_TEXT_SIZE], const char *s, size_t len);

/* Until cleared with NULL, start the calling thread's errors and warnings
 * with "where: " (a config file's "FILE:LINE" while the value it set is
 * used). where must stay valid meanwhile. */
void log_set_context(const char *where);

/* The text of the last error logged by any thread (without "vncfb: "),
 * copied into buf and cleared; "" when none since the last call. For
 * saying why on the screen (the reconnect status line). */
void log_take_error(char *buf, size_t len);

#define log_error(...) log_msg(LOG_ERROR, __FILE__, __LINE__, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __FILE__, __LINE__, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __FILE__, __LINE__, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __FILE__, __LINE__, __VA_ARGS__)

#endif
