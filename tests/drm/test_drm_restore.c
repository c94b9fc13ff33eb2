/* The DRM output's restore list without a device (fbdev/drm/drm_restore.h):
 * the first state of a CRTC is the one kept, what is put back is
 * forgotten, a process forked before a change sees it (the supervisor),
 * and a writer killed at any moment leaves no half-written entry. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "drm/drm_restore.h"
#include "../check.h"

/* A CRTC state whose every field says v (crtc_id: id), with n
 * connectors, each v too. */
static void fill(struct drm_mode_crtc *c, uint32_t *conns, uint32_t id,
		 uint32_t v, uint32_t n)
{
	uint32_t i;

	memset(c, 0, sizeof(*c));
	c->crtc_id = id;
	c->fb_id = v;
	c->x = v;
	c->y = v;
	c->mode_valid = 1;
	c->mode.clock = v;
	c->mode.hdisplay = (uint16_t)v;
	for (i = 0; i < n; i++)
		conns[i] = v;
}

/* Whether c is one state as fill made it, whole. */
static int whole(const struct drm_mode_crtc *c)
{
	const uint32_t *conns =
	    (const uint32_t *)(uintptr_t)c->set_connectors_ptr;
	uint32_t v = c->fb_id, i;

	if (c->x != v || c->y != v || c->mode.clock != v ||
	    c->mode.hdisplay != (uint16_t)v || !c->mode_valid ||
	    c->count_connectors > DRM_RESTORE_CONNS || !conns)
		return 0;
	for (i = 0; i < c->count_connectors; i++)
		if (conns[i] != v)
			return 0;
	return 1;
}

static void test_keep(void)
{
	struct drm_restore *r = drm_restore_create();
	struct drm_mode_crtc c;
	const struct drm_mode_crtc *got;
	uint32_t conns[DRM_RESTORE_CONNS + 4], ids[DRM_RESTORE_MAX + 1];
	int fds[DRM_RESTORE_MAX + 1], i;

	CHECK(r != NULL);
	if (!r)
		return;
	fill(&c, conns, 41, 7, 2);
	CHECK(drm_restore_keep(r, -1, &c, conns, 2) == 0);
	/* Kept already: the first state stays (the console's). */
	fill(&c, conns, 41, 99, 1);
	CHECK(drm_restore_keep(r, -1, &c, conns, 1) == 0);
	got = drm_restore_find(r, -1, 41);
	CHECK(got && got->fb_id == 7 && got->count_connectors == 2 &&
	      whole(got));
	/* The connectors are read from the list itself, not the caller's
	 * array, which is gone by the time of a restore. */
	CHECK(got && (const char *)(uintptr_t)got->set_connectors_ptr >
			 (const char *)r);
	/* More clones than kept: the first DRM_RESTORE_CONNS. */
	fill(&c, conns, 42, 8, DRM_RESTORE_CONNS + 4);
	CHECK(drm_restore_keep(r, -1, &c, conns, DRM_RESTORE_CONNS + 4) == 0);
	got = drm_restore_find(r, -1, 42);
	CHECK(got && got->count_connectors == DRM_RESTORE_CONNS && whole(got));
	CHECK(drm_restore_list(r, fds, ids, DRM_RESTORE_MAX) == 2);
	CHECK(drm_restore_find(r, -1, 43) == NULL);

	/* Put back (the ioctl fails on no card) is forgotten all the same;
	 * one not kept is -ENOENT. */
	CHECK(drm_restore_put_back(r, -1, 41) == -EBADF);
	CHECK(drm_restore_find(r, -1, 41) == NULL);
	CHECK(drm_restore_put_back(r, -1, 41) == -ENOENT);
	/* Switched away: only forgotten, no ioctl. */
	drm_restore_set_away(r, true);
	CHECK(drm_restore_put_back(r, -1, 42) == 0);
	drm_restore_set_away(r, false);
	CHECK(drm_restore_list(r, fds, ids, DRM_RESTORE_MAX) == 0);

	/* Two cards may have CRTCs of the same id: each kept with its
	 * card's file, put back on it, forgotten alone. */
	fill(&c, conns, 41, 7, 1);
	CHECK(drm_restore_keep(r, 1000, &c, conns, 1) == 0);
	fill(&c, conns, 41, 9, 1);
	CHECK(drm_restore_keep(r, 1001, &c, conns, 1) == 0);
	got = drm_restore_find(r, 1001, 41);
	CHECK(got && got->fb_id == 9);
	got = drm_restore_find(r, 1000, 41);
	CHECK(got && got->fb_id == 7);
	CHECK(drm_restore_find(r, -1, 41) == NULL);
	CHECK(drm_restore_list(r, fds, ids, DRM_RESTORE_MAX) == 2 &&
	      fds[0] + fds[1] == 2001 && ids[0] == 41 && ids[1] == 41);
	CHECK(drm_restore_put_back(r, 1000, 41) == -EBADF);
	CHECK(!drm_restore_find(r, 1000, 41) && drm_restore_find(r, 1001, 41));
	CHECK(drm_restore_list(r, fds, ids, DRM_RESTORE_MAX) == 1 &&
	      fds[0] == 1001);
	CHECK(drm_restore_put_back(r, 1001, 41) == -EBADF);

	/* As many CRTCs as the list holds, and no more. */
	for (i = 0; i < DRM_RESTORE_MAX; i++) {
		fill(&c, conns, 100 + (uint32_t)i, 1, 1);
		CHECK(drm_restore_keep(r, -1, &c, conns, 1) == 0);
	}
	fill(&c, conns, 999, 1, 1);
	CHECK(drm_restore_keep(r, -1, &c, conns, 1) == -ENOSPC);
	CHECK(drm_restore_list(r, fds, ids, DRM_RESTORE_MAX + 1) ==
	      DRM_RESTORE_MAX);
	drm_restore_destroy(r);
	drm_restore_destroy(NULL);
}

/* A process forked before the changes (the supervisor) sees them: a
 * CRTC kept after the fork, one put back after it gone. */
static void test_shared(void)
{
	struct drm_restore *r = drm_restore_create();
	struct drm_mode_crtc c;
	uint32_t conns[2];
	int go[2], st = 0;
	pid_t pid;
	char b;

	CHECK(r != NULL && pipe(go) == 0);
	if (!r)
		return;
	fill(&c, conns, 1, 5, 1);
	CHECK(drm_restore_keep(r, -1, &c, conns, 1) == 0);
	pid = fork();
	if (pid == 0) {
		const struct drm_mode_crtc *got;

		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(2);
		got = drm_restore_find(r, -1, 2);
		_exit(got && got->fb_id == 6 && got->count_connectors == 2 &&
			      whole(got) && !drm_restore_find(r, -1, 1)
			  ? 0
			  : 3);
	}
	close(go[0]);
	fill(&c, conns, 2, 6, 2);
	CHECK(drm_restore_keep(r, -1, &c, conns, 2) == 0);
	drm_restore_put_back(r, -1, 1);
	CHECK(write(go[1], "g", 1) == 1);
	close(go[1]);
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	drm_restore_destroy(r);
}

/* A writer that keeps and puts back CRTCs without a pause, each state
 * whole, killed (SIGKILL) at random moments: whatever it leaves listed
 * is whole, as the supervisor will replay it. */
static void test_killed(void)
{
	struct drm_restore *r = drm_restore_create();
	unsigned seed = (unsigned)time(NULL);
	int round, torn = 0, listed = 0;

	CHECK(r != NULL);
	if (!r)
		return;
	srand(seed);
	for (round = 0; round < 300; round++) {
		struct timespec ts = {0, (rand() % 2000) * 1000};
		uint32_t ids[DRM_RESTORE_MAX];
		int fds[DRM_RESTORE_MAX], st, i, n;
		pid_t pid = fork();

		if (pid == 0) {
			struct drm_mode_crtc c;
			uint32_t conns[DRM_RESTORE_CONNS], v;

			/* No ioctl in put_back: the writes are most of the
			 * loop, where a kill is likeliest to land. */
			drm_restore_set_away(r, true);
			for (v = (uint32_t)round << 16;; v++) {
				uint32_t id = 1 + v % 7;

				fill(&c, conns, id, v, 1 + v % 8);
				drm_restore_keep(r, -1, &c, conns, 1 + v % 8);
				if (v % 3)
					drm_restore_put_back(r, -1,
							     1 + v / 7 % 7);
			}
		}
		CHECK(pid > 0);
		if (pid < 0)
			break;
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		n = drm_restore_list(r, fds, ids, DRM_RESTORE_MAX);
		for (i = 0; i < n; i++) {
			const struct drm_mode_crtc *c =
			    drm_restore_find(r, fds[i], ids[i]);

			listed++;
			if (!c || !whole(c))
				torn++;
		}
	}
	CHECK(torn == 0, "%d of %d entries left half-written (seed %u)", torn,
	      listed, seed);
	CHECK(listed > 0, "the writer never left an entry listed");
	drm_restore_destroy(r);
}

int main(void)
{
	test_keep();
	test_shared();
	test_killed();
	return check_done("drm_restore");
}
