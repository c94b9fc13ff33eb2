/* Logging: one line per event on stderr, prefixed "vncfb: ". Any thread. */
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
