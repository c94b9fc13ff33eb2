/* Replay driver for the reader fuzz target without libFuzzer: every file
 * (or every file in a directory) through LLVMFuzzerTestOneInput once.
 * Built with ASan/UBSan where the compiler has them, so a memory error
 * or an abort fails the test; the outcomes themselves are the session
 * replay's business (replay.c, EXPECT). */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int cases;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t n = 0, cap = 0, k;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			data = realloc(data, cap);
			if (!data) {
				fclose(f);
				return -1;
			}
		}
		k = fread(data + n, 1, cap - n, f);
		n += k;
	} while (k > 0);
	fclose(f);
	LLVMFuzzerTestOneInput(data, n);
	free(data);
	cases++;
	return 0;
}

static int run_path(const char *path)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char full[4096];

		if (de->d_name[0] == '.')
			continue;
		snprintf(full, sizeof(full), "%s/%s", path, de->d_name);
		if (run_file(full) < 0)
			ret = -1;
	}
	closedir(d);
	return ret;
}

int main(int argc, char **argv)
{
	int ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: replay_reader PATH...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		if (run_path(argv[i]) < 0)
			ret = 1;
	printf("%d inputs replayed\n", cases);
	return ret;
}
