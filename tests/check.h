/* The CHECK macro of the C tests: count a failure, say where, go on (so
 * one run reports every broken case). main() returns failures != 0.
 *
 *   CHECK(cond);                        "FAIL file:line: cond"
 *   CHECK(cond, "got %d, want %d", a, b);  the message instead
 *   CHECK_EQ(got, want);                both as integers, with their values
 *   return check_done("name");          "name: N checks, N failed"; 0 or 1
 *
 * The message is a string literal: the macro prefixes it with a space,
 * so that a message-less CHECK still passes a format (" ") to a function
 * the compiler checks like printf; check_fail skips that space. */
#ifndef VNCFB_TESTS_CHECK_H
#define VNCFB_TESTS_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int failures;
static int checks;

__attribute__((format(printf, 4, 5))) static inline void
check_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL %s:%d: ", file, line);
	if (fmt[1]) {
		va_start(ap, fmt);
		vfprintf(stderr, fmt + 1, ap);
		va_end(ap);
	} else {
		fputs(cond, stderr);
	}
	fputc('\n', stderr);
	failures++;
}

/* Append to buf (size bytes, a C string), space-separated: the event log
 * that fakes and sinks write and a test compares with what it expects. */
__attribute__((format(printf, 3, 4))) static inline void
log_append(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n && n + 1 < size)
		buf[n++] = ' ';
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		checks++;                                                      \
		if (!(cond))                                                   \
			check_fail(__FILE__, __LINE__, #cond,                  \
				   " " __VA_ARGS__);                           \
	} while (0)

#define CHECK_EQ(got, want)                                                    \
	do {                                                                   \
		long long got_ = (long long)(got), want_ = (long long)(want);  \
		CHECK(got_ == want_, "%s == %s: got %lld, want %lld", #got,    \
		      #want, got_, want_);                                     \
	} while (0)

/* main() of a test whose subject this build left out: says why on
 * stderr and skips (77). */
#define CHECK_SKIP_MAIN(why)                                                   \
	int main(void)                                                         \
	{                                                                      \
		fprintf(stderr, "skip: %s\n", why);                            \
		return 77;                                                     \
	}

/* The end of main(): one summary line, and the exit status. */
static inline int check_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, checks, failures);
	return failures ? 1 : 0;
}

#endif
