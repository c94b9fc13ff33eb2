/* Password sources. The file format is the one vncpasswd (TigerVNC,
 * libvncserver) writes: the password, zero-padded to 8 bytes, DES-encrypted
 * with a fixed key; libvncserver's public rfbDecryptPasswdFromFile and
 * rfbEncryptBytes do the cipher. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <rfb/rfb.h>

#include "util/log.h"
#include "net/passwd.h"

static void wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;

	while (n--)
		*v++ = 0;
}

void passwd_free(char *pw)
{
	if (!pw)
		return;
	wipe(pw, strlen(pw));
	free(pw);
}

/* Printable text (and line ends) only: what an editor or echo writes. */
static bool is_text(const unsigned char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((b[i] < 0x20 || b[i] > 0x7e) && b[i] != '\n' &&
		    b[i] != '\r' && b[i] != '\t')
			return false;
	return true;
}

/* vncpasswd writes 8 bytes of DES output (16 with a view-only password).
 * Text ending in a newline is a plain password: an encrypted file looks
 * like that once in about 200000. */
static int check_format(const char *path, int fd, off_t size)
{
	unsigned char b[64];
	ssize_t n = read(fd, b, sizeof(b));
	bool text = n > 0 && is_text(b, (size_t)n);
	bool vnc = size == 8 || size == 16;

	if (n < 0) {
		log_error("cannot read password file %s: %s", path,
			  strerror(errno));
		return -errno;
	}
	if (text && (!vnc || b[n - 1] == '\n')) {
		log_error("password file %s holds plain text; vncfb reads the "
			  "vncpasswd format (make it with: vncpasswd %s)",
			  path, path);
		return -EINVAL;
	}
	if (!vnc) {
		log_error("password file %s is %lld bytes, not a vncpasswd "
			  "file (8 bytes; make it with: vncpasswd %s)",
			  path, (long long)size, path);
		return -EINVAL;
	}
	return 0;
}

/* Open path if it is a regular file that only its owner may read: the
 * fd, or -errno (logged). */
static int open_private(const char *path, struct stat *st)
{
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		log_error("cannot read password file %s: %s", path,
			  strerror(err));
		return -err;
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		log_error("password file %s is not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	if (st->st_mode & 077) {
		log_error("password file %s is accessible by others (mode "
			  "%03o); it must be private: chmod 600 %s",
			  path, (unsigned)(st->st_mode & 0777), path);
		close(fd);
		return -EPERM;
	}
	return fd;
}

int passwd_check_file(const char *path)
{
	struct stat st;
	int fd, ret;

	fd = open_private(path, &st);
	if (fd < 0)
		return fd;
	ret = check_format(path, fd, st.st_size);
	close(fd);
	return ret;
}

/* The first line of a private file, or NULL (logged). */
static char *read_plain(const char *path, bool check_only)
{
	static char good[] = "";
	char buf[4096];
	struct stat st;
	ssize_t n;
	size_t len;
	char *pw = NULL;
	int fd;

	fd = open_private(path, &st);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		log_error("cannot read password file %s: %s", path,
			  strerror(errno));
		return NULL;
	}
	buf[n] = '\0';
	len = strcspn(buf, "\r\n");
	if (len == 0)
		log_error("password file %s: the first line is empty", path);
	else if (len == (size_t)n && n == (ssize_t)sizeof(buf) - 1)
		log_error("password file %s: the first line is longer than "
			  "%zu bytes", path, sizeof(buf) - 2);
	else if (memchr(buf, '\0', len))
		log_error("password file %s holds no text line", path);
	else if (check_only)
		pw = good;
	else {
		buf[len] = '\0';
		pw = strdup(buf);
	}
	wipe(buf, sizeof(buf));
	return pw;
}

int passwd_check_plain(const char *path)
{
	return read_plain(path, true) ? 0 : -EINVAL;
}

char *passwd_read_plain(const char *path)
{
	return read_plain(path, false);
}

char *passwd_read_file(const char *path)
{
	char *pw;

	if (passwd_check_file(path) < 0)
		return NULL;
	pw = rfbDecryptPasswdFromFile((char *)path);
	if (!pw)
		log_error("cannot decode password file %s", path);
	return pw;
}

char *passwd_prompt(const char *label, bool echo)
{
	struct termios old, noecho;
	char buf[256];
	FILE *tty;
	char *ret = NULL;
	size_t n;

	tty = fopen("/dev/tty", "r+");
	if (!tty)
		return NULL;
	if (tcgetattr(fileno(tty), &old) < 0) {
		fclose(tty);
		return NULL;
	}
	noecho = old;
	if (!echo) {
		noecho.c_lflag &= ~(tcflag_t)ECHO;
		noecho.c_lflag |= ECHONL;
	}
	fputs(label, tty);
	fflush(tty);
	tcsetattr(fileno(tty), TCSAFLUSH, &noecho);
	if (fgets(buf, sizeof(buf), tty)) {
		n = strcspn(buf, "\r\n");
		buf[n] = '\0';
		ret = strdup(buf);
	}
	tcsetattr(fileno(tty), TCSAFLUSH, &old);
	wipe(buf, sizeof(buf));
	fclose(tty);
	return ret;
}

/* $VNCFB_PASSWORD, TigerVNC's $VNC_PASSWORD, or the terminal. */
static char *env_or_prompt(void)
{
	const char *env = getenv("VNCFB_PASSWORD");

	if (!env)
		env = getenv("VNC_PASSWORD");
	if (env)
		return strdup(env);
	return passwd_prompt("VNC password: ", false);
}

char *passwd_get(void *ctx)
{
	const char *path = ctx;

	if (path)
		return passwd_read_file(path);
	return env_or_prompt();
}

char *passwd_get_plain(void *ctx)
{
	const char *path = ctx;

	if (path)
		return passwd_read_plain(path);
	return env_or_prompt();
}
