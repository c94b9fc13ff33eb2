/* Unit test: vncpasswd files. One written here with libvncserver's
 * rfbEncryptAndStorePasswd, one written by TigerVNC's `vncpasswd -f` for
 * "vncfb-ok" (argv[1], committed as test data); files readable by others,
 * short files and directories are refused. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rfb/rfb.h>

#include "../check.h"
#include "net/passwd.h"

static char dir[] = "/tmp/vncfb-passwd-XXXXXX";

static char *path_in(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static int decodes_to(const char *path, const char *want)
{
	char *pw = passwd_read_file(path);
	int ok = pw && strcmp(pw, want) == 0;

	if (!ok)
		fprintf(stderr, "%s -> '%s', expected '%s'\n", path,
			pw ? pw : "(null)", want);
	passwd_free(pw);
	return ok;
}

static int copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[64];
	ssize_t n;
	int in = open(from, O_RDONLY), out;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	close(in);
	close(out);
	return chmod(to, mode);
}

int main(int argc, char **argv)
{
	char *p;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: test_passwd VNCPASSWD-FILE\n");
		return 2;
	}
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}

	/* libvncserver's writer; it creates the file mode 600 itself. */
	p = path_in("lib");
	CHECK_EQ(rfbEncryptAndStorePasswd("s3cret", p), 0);
	chmod(p, 0600);
	CHECK_EQ(passwd_check_file(p), 0);
	CHECK(decodes_to(p, "s3cret"));
	/* VNC passwords are 8 characters at most. */
	p = path_in("long");
	CHECK_EQ(rfbEncryptAndStorePasswd("0123456789", p), 0);
	chmod(p, 0600);
	CHECK(decodes_to(p, "01234567"));

	/* TigerVNC's vncpasswd -f output for "vncfb-ok". */
	p = path_in("tiger");
	CHECK_EQ(copy_file(argv[1], p, 0600), 0);
	CHECK(decodes_to(p, "vncfb-ok"));

	/* Readable by group or others: refused, whatever is inside. */
	chmod(p, 0644);
	CHECK_EQ(passwd_check_file(p), -EPERM);
	CHECK(passwd_read_file(p) == NULL);
	chmod(p, 0640);
	CHECK_EQ(passwd_check_file(p), -EPERM);
	chmod(p, 0602);
	CHECK_EQ(passwd_check_file(p), -EPERM);
	chmod(p, 0400);
	CHECK_EQ(passwd_check_file(p), 0);

	/* Too short, missing, a directory. */
	p = path_in("short");
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, "abc", 3) == 3);
	close(fd);
	CHECK_EQ(passwd_check_file(p), -EINVAL);
	CHECK_EQ(passwd_check_file(path_in("missing")), -ENOENT);
	/* A private directory: refused as not a regular file (EINVAL),
	 * not for its mode nor for failing to read it (EISDIR). */
	chmod(dir, 0700);
	CHECK_EQ(passwd_check_file(dir), -EINVAL);
	CHECK(passwd_read_file(dir) == NULL);

	/* With no file, the environment. */
	setenv("VNCFB_PASSWORD", "from-env", 1);
	p = passwd_get(NULL);
	CHECK(p && strcmp(p, "from-env") == 0);
	passwd_free(p);

	unlink(path_in("lib"));
	unlink(path_in("long"));
	unlink(path_in("tiger"));
	unlink(path_in("short"));
	rmdir(dir);
	return check_done("passwd");
}
