/* Password sources. The file format is the one vncpasswd (TigerVNC,
 * libvncserver) writes: the password, zero-padded to 8 bytes, DES-encrypted
 * with a fixed key; libvncserver's public rfbDecryptPasswdFromFile and
 * rfbEncryptBytes do the cipher. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <rfb/rfb.h>

#include "log.h"
#include "passwd.h"

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

int passwd_check_file(const char *path)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		log_error("cannot read password file %s: %s", path,
			  strerror(err));
		return -err;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		log_error("password file %s is not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	close(fd);
	if (st.st_mode & 077) {
		log_error("password file %s is accessible by others (mode "
			  "%03o); it must be private: chmod 600 %s",
			  path, (unsigned)(st.st_mode & 0777), path);
		return -EPERM;
	}
	if (st.st_size < 8) {
		log_error("password file %s is too short to be a vncpasswd "
			  "file (%lld bytes)",
			  path, (long long)st.st_size);
		return -EINVAL;
	}
	return 0;
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

static char *prompt(void)
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
	noecho.c_lflag &= ~(tcflag_t)ECHO;
	noecho.c_lflag |= ECHONL;
	fputs("VNC password: ", tty);
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

char *passwd_get(void *ctx)
{
	const char *path = ctx;
	const char *env;

	if (path)
		return passwd_read_file(path);
	env = getenv("VNCFB_PASSWORD");
	if (env)
		return strdup(env);
	return prompt();
}
