/* Stand-in for the BSDs' <sys/event.h> (kqueue), which Linux lacks:
 * tests/netbsd/test_wscons_input.c implements kqueue1() and kevent() over
 * poll(). */
#ifndef FAKE_SYS_EVENT_H
#define FAKE_SYS_EVENT_H

#include <stdint.h>
#include <time.h>

struct kevent {
	uintptr_t ident;
	uint32_t filter;
	uint32_t flags;
	uint32_t fflags;
	int64_t data;
	void *udata;
};

#define EVFILT_READ 0U
#define EV_ADD 0x0001U
#define EV_DELETE 0x0002U

#define EV_SET(kevp, a, b, c, d, e, f)                                         \
	do {                                                                   \
		(kevp)->ident = (a);                                           \
		(kevp)->filter = (b);                                          \
		(kevp)->flags = (c);                                           \
		(kevp)->fflags = (d);                                          \
		(kevp)->data = (e);                                            \
		(kevp)->udata = (void *)(f);                                   \
	} while (0)

int kqueue1(int flags);
int kevent(int kq, const struct kevent *changes, size_t nchanges,
	   struct kevent *events, size_t nevents, const struct timespec *ts);

#endif
