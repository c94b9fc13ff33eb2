/* Prints the state of a VT the way the console tests check it:
 * "KDMODE text|graphics VTMODE auto|process ACTIVE n". */
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/dev/tty1";
	struct vt_mode vm;
	struct vt_stat vs;
	int fd = open(path, O_RDWR | O_NOCTTY), kd;

	if (fd < 0) {
		perror(path);
		return 1;
	}
	if (ioctl(fd, KDGETMODE, &kd) < 0 || ioctl(fd, VT_GETMODE, &vm) < 0 ||
	    ioctl(fd, VT_GETSTATE, &vs) < 0) {
		perror("ioctl");
		return 1;
	}
	printf("KDMODE %s VTMODE %s ACTIVE %d\n",
	       kd == KD_TEXT ? "text" : "graphics",
	       vm.mode == VT_AUTO ? "auto" : "process", vs.v_active);
	close(fd);
	return 0;
}
