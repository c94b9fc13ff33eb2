/* Logging: one line per event on stderr, prefixed "vncfb: ". Any thread. */
#ifndef VNCFB_LOG_H
#define VNCFB_LOG_H

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

#define log_error(...) log_msg(LOG_ERROR, __FILE__, __LINE__, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __FILE__, __LINE__, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __FILE__, __LINE__, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __FILE__, __LINE__, __VA_ARGS__)

#endif
