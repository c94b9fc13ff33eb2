/* Linux VT: KD_GRAPHICS, VT_PROCESS switching through a self-pipe, and the
 * one restore path every exit takes. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fbdev.h"
#include "util/log.h"
#include "vt.h"

/* Not SIGUSR1: that one asks the session for a screenshot. */
#define VT_RELSIG SIGUSR2
#define VT_ACQSIG (SIGRTMIN)

#define TTY_MAJOR_NUM 4
#define VT_MAX_NUM 63

static int sig_wfd = -1;
static struct vt *open_vt;
static struct sigaction old_rel, old_acq;

static void on_vt_signal(int signo)
{
	int saved = errno;
	char c = signo == VT_RELSIG ? 'R' : 'A';

	if (sig_wfd >= 0 && write(sig_wfd, &c, 1) < 0) {
		/* Pipe full: the main loop is far behind; the kernel waits
		 * for our ack anyway. */
	}
	errno = saved;
}

/* The VT of our controlling terminal (stdin), or 0. */
static int stdin_vt(void)
{
	struct stat st;

	if (fstat(STDIN_FILENO, &st) < 0 || !S_ISCHR(st.st_mode))
		return 0;
	if (major(st.st_rdev) != TTY_MAJOR_NUM || minor(st.st_rdev) < 1 ||
	    minor(st.st_rdev) > VT_MAX_NUM)
		return 0;
	return (int)minor(st.st_rdev);
}

/* Which VT to take: our own terminal when it is a VT, else the one shown
 * now. 1..63, or -errno (-ENODEV: the system has no VTs). */
static int find_vt(void)
{
	struct vt_stat vs;
	int fd, n = stdin_vt();

	if (n > 0)
		return n;
	fd = open("/dev/tty0", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		if (err == ENOENT || err == ENXIO || err == ENODEV) {
			log_warn("no virtual terminal (/dev/tty0: %s): the "
				 "text console is left as it is",
				 strerror(err));
			return -ENODEV;
		}
		log_warn("/dev/tty0: %s: cannot find the active VT; start "
			 "vncfb from the console's own VT so it can hide the "
			 "text console",
			 strerror(err));
		return -ENODEV;
	}
	if (ioctl(fd, VT_GETSTATE, &vs) < 0) {
		log_warn("ioctl VT_GETSTATE: %s: the text console is left as "
			 "it is",
			 strerror(errno));
		close(fd);
		return -ENODEV;
	}
	close(fd);
	return vs.v_active;
}

static int install_signals(struct vt *vt)
{
	struct sigaction sa;

	if (pipe2(vt->pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		int err = errno;

		log_error("pipe: %s", strerror(err));
		return -err;
	}
	sig_wfd = vt->pipe[1];
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_vt_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(VT_RELSIG, &sa, &old_rel);
	sigaction(VT_ACQSIG, &sa, &old_acq);
	return 0;
}

static void remove_signals(struct vt *vt)
{
	if (vt->pipe[0] < 0)
		return;
	sigaction(VT_RELSIG, &old_rel, NULL);
	sigaction(VT_ACQSIG, &old_acq, NULL);
	sig_wfd = -1;
	close(vt->pipe[0]);
	close(vt->pipe[1]);
	vt->pipe[0] = vt->pipe[1] = -1;
}

/* Make VT n the one shown and wait for it, so we start on screen. */
static int show_vt(struct vt *vt)
{
	struct vt_stat vs;

	if (ioctl(vt->fd, VT_GETSTATE, &vs) == 0 && vs.v_active == vt->num)
		return 0;
	if (ioctl(vt->fd, VT_ACTIVATE, vt->num) < 0 ||
	    ioctl(vt->fd, VT_WAITACTIVE, vt->num) < 0) {
		int err = errno;

		log_error("ioctl VT_ACTIVATE %d: %s", vt->num, strerror(err));
		return -err;
	}
	return 0;
}

int vt_open(struct vt *vt)
{
	char path[32];
	struct vt_mode mode;
	struct termios tio;
	int n, ret;

	memset(vt, 0, sizeof(*vt));
	vt->fd = -1;
	vt->pipe[0] = vt->pipe[1] = -1;
	n = find_vt();
	if (n < 0)
		return n;
	vt->num = n;
	snprintf(path, sizeof(path), "/dev/tty%d", n);
	vt->fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (vt->fd < 0) {
		log_warn("%s: %s: the text console is left as it is", path,
			 strerror(errno));
		return -ENODEV;
	}
	ret = show_vt(vt);
	if (ret < 0)
		goto fail;
	if (ioctl(vt->fd, KDGETMODE, &vt->old_kdmode) < 0) {
		ret = -errno;
		log_error("ioctl KDGETMODE on %s: %s", path, strerror(errno));
		goto fail;
	}
	if (vt->old_kdmode == KD_GRAPHICS)
		log_warn("%s was already in graphics mode; it goes back to "
			 "text mode on exit",
			 path);
	if (ioctl(vt->fd, VT_GETMODE, &vt->old_mode) < 0) {
		ret = -errno;
		log_error("ioctl VT_GETMODE on %s: %s", path, strerror(errno));
		goto fail;
	}
	ret = install_signals(vt);
	if (ret < 0)
		goto fail;
	memset(&mode, 0, sizeof(mode));
	mode.mode = VT_PROCESS;
	mode.relsig = (short)VT_RELSIG;
	mode.acqsig = (short)VT_ACQSIG;
	if (ioctl(vt->fd, VT_SETMODE, &mode) < 0) {
		ret = -errno;
		log_error("ioctl VT_SETMODE on %s: %s", path, strerror(errno));
		goto fail;
	}
	vt->process = true;
	/* Keys that reach the VT anyway (devices we could not grab) must
	 * not be echoed into the text console underneath. */
	if (tcgetattr(vt->fd, &vt->old_tio) == 0) {
		vt->termios_saved = true;
		tio = vt->old_tio;
		tio.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON);
		tcsetattr(vt->fd, TCSANOW, &tio);
	}
	if (ioctl(vt->fd, KDSETMODE, KD_GRAPHICS) < 0) {
		ret = -errno;
		log_error("ioctl KDSETMODE KD_GRAPHICS on %s: %s", path,
			  strerror(errno));
		goto fail;
	}
	vt->graphics = true;
	vt->active = true;
	open_vt = vt;
	log_debug("took over %s", path);
	return 0;
fail:
	vt_close(vt);
	return ret;
}

/* When vncfb led the session whose controlling terminal is the VT (a
 * login there, systemd's TTYPath) and died, the kernel hung up every file
 * of the VT, the supervisor's copy of ours too: ioctls on it fail with
 * EIO. A fresh open of the VT still works. Async-signal-safe. */
static void reopen_if_hung_up(struct vt *vt)
{
	char path[16] = "/dev/tty";
	int kd, fd, i = 8;

	if (ioctl(vt->fd, KDGETMODE, &kd) == 0 || errno != EIO)
		return;
	if (vt->num >= 10)
		path[i++] = (char)('0' + vt->num / 10);
	path[i++] = (char)('0' + vt->num % 10);
	path[i] = '\0';
	fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	dup2(fd, vt->fd);
	close(fd);
}

/* Async-signal-safe body of the restore. */
static void restore(struct vt *vt)
{
	struct vt_mode mode;

	if (vt->fd < 0)
		return;
	reopen_if_hung_up(vt);
	if (vt->graphics) {
		ioctl(vt->fd, KDSETMODE, KD_TEXT);
		vt->graphics = false;
	}
	if (vt->process) {
		/* The saved mode may name another process's signals (a
		 * display server that crashed); VT_AUTO is always safe. */
		mode = vt->old_mode;
		if (mode.mode != VT_AUTO) {
			memset(&mode, 0, sizeof(mode));
			mode.mode = VT_AUTO;
		}
		ioctl(vt->fd, VT_SETMODE, &mode);
		vt->process = false;
	}
	if (vt->termios_saved) {
		/* Drop what was typed at the VT meanwhile, so it does not
		 * run in the shell we return to. */
		tcflush(vt->fd, TCIFLUSH);
		tcsetattr(vt->fd, TCSANOW, &vt->old_tio);
		vt->termios_saved = false;
	}
}

void vt_emergency_restore(struct vt *vt)
{
	restore(vt);
}

void vt_close(struct vt *vt)
{
	restore(vt);
	remove_signals(vt);
	if (open_vt == vt)
		open_vt = NULL;
	if (vt->fd >= 0) {
		close(vt->fd);
		vt->fd = -1;
	}
}

int vt_event_fd(const struct vt *vt)
{
	return vt->fd >= 0 ? vt->pipe[0] : -1;
}

/* Next pending switch request, VT_EV_NONE when drained. */
static enum vt_request vt_next_event(struct vt *vt)
{
	char c;

	if (vt->pipe[0] < 0 || read(vt->pipe[0], &c, 1) != 1)
		return VT_EV_NONE;
	return c == 'R' ? VT_EV_RELEASE : VT_EV_ACQUIRE;
}

/* Why a VT ioctl was refused, when the reason is ours. */
static const char *perm_hint(int err)
{
	/* The kernel lets only the VT's own session (or root) switch it. */
	if (err == EPERM && geteuid() != 0)
		return " (vncfb must run on the VT itself once it is not root: "
		       "start it from a login there, or with systemd's "
		       "TTYPath)";
	return "";
}

/* Acknowledge a release (after drawing stopped) or an acquire (before
 * drawing resumes). 0 or -errno (logged). */
static int vt_ack_release(struct vt *vt)
{
	if (ioctl(vt->fd, VT_RELDISP, 1) < 0) {
		int err = errno;

		log_error("ioctl VT_RELDISP: %s%s", strerror(err),
			  perm_hint(err));
		return -err;
	}
	vt->active = false;
	return 0;
}

static int vt_ack_acquire(struct vt *vt)
{
	if (ioctl(vt->fd, VT_RELDISP, VT_ACKACQ) < 0) {
		/* The kernel may have completed the switch already (another
		 * VT_ACTIVATE raced us): drawing is right either way. */
		log_debug("ioctl VT_RELDISP VT_ACKACQ: %s", strerror(errno));
	}
	vt->active = true;
	return 0;
}

int vt_dispatch(struct vt *vt, const struct output_events *ev,
		const struct vt_switch *sw)
{
	enum vt_request e;
	int ret;

	while ((e = vt_next_event(vt)) != VT_EV_NONE) {
		if (e == VT_EV_RELEASE) {
			if (!vt->active)
				continue;
			/* The blitter must be out of the mapping, and the
			 * input off the keyboard, before the kernel hands
			 * the screen to someone else. */
			ev->suspend(ev->ctx);
			if (sw->release)
				sw->release(sw->ctx);
			ret = vt_ack_release(vt);
			if (ret < 0) {
				if (sw->acquire)
					sw->acquire(sw->ctx);
				ev->resume(ev->ctx);
				return ret;
			}
			log_debug("VT %d released", vt->num);
		} else {
			vt_ack_acquire(vt);
			if (sw->acquire)
				sw->acquire(sw->ctx);
			ev->resume(ev->ctx);
			log_debug("VT %d acquired", vt->num);
		}
	}
	return 0;
}

int vt_activate(int n)
{
	static bool warned;
	int fd = open_vt ? open_vt->fd : -1, ret = 0;
	bool own = false;

	if (n < 1 || n > VT_MAX_NUM)
		return -EINVAL;
	if (fd < 0) {
		fd = open("/dev/tty0", O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			goto out;
		}
		own = true;
	}
	if (ioctl(fd, VT_ACTIVATE, n) < 0)
		ret = -errno;
	if (own)
		close(fd);
out:
	if (ret < 0 && !warned) {
		log_warn("cannot switch to VT %d: %s%s", n, strerror(-ret),
			 perm_hint(-ret));
		warned = true;
	}
	return ret;
}
