/* The CRTCs to put back on exit, in memory the supervisor shares. */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "drm_restore.h"

/* The supervisor and a signal handler read what the main thread writes:
 * only lock-free atomics are safe in a handler and across processes. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "int atomics must be lock-free");

struct entry {
	/* 1: fd, crtc and conns are whole and are replayed. Stored last
	 * when an entry is made, first when it goes. */
	atomic_uint used;
	/* The CRTC's card: vncfb's file of it, which the supervisor holds
	 * at the same number (forked after every card was opened). */
	int fd;
	/* As the restore ioctl takes it: set_connectors_ptr points at
	 * conns, in this same shared mapping. */
	struct drm_mode_crtc crtc;
	uint32_t conns[DRM_RESTORE_CONNS];
	/* The plane's rotation as it was, set before the CRTC (prop 0:
	 * nothing to set). */
	struct drm_mode_obj_set_property rot;
};

struct drm_restore {
	atomic_uint away;
	struct entry e[DRM_RESTORE_MAX];
};

struct drm_restore *drm_restore_create(void)
{
	/* Shared, not private: the supervisor forked later must see every
	 * change, not the page as it was at the fork. */
	void *m = mmap(NULL, sizeof(struct drm_restore), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return m == MAP_FAILED ? NULL : m;
}

void drm_restore_destroy(struct drm_restore *r)
{
	if (r)
		munmap(r, sizeof(*r));
}

static struct entry *find(const struct drm_restore *r, int fd, uint32_t crtc_id)
{
	int i;

	for (i = 0; i < DRM_RESTORE_MAX; i++) {
		const struct entry *e = &r->e[i];

		if (atomic_load_explicit(&e->used, memory_order_acquire) &&
		    e->fd == fd && e->crtc.crtc_id == crtc_id)
			return (struct entry *)e;
	}
	return NULL;
}

const struct drm_mode_crtc *drm_restore_find(const struct drm_restore *r,
					     int fd, uint32_t crtc_id)
{
	const struct entry *e = find(r, fd, crtc_id);

	return e ? &e->crtc : NULL;
}

int drm_restore_keep(struct drm_restore *r, int fd,
		     const struct drm_mode_crtc *c, const uint32_t *conns,
		     uint32_t n)
{
	struct entry *e = NULL;
	int i;

	if (find(r, fd, c->crtc_id))
		return 0;
	for (i = 0; i < DRM_RESTORE_MAX && !e; i++)
		if (!atomic_load_explicit(&r->e[i].used, memory_order_relaxed))
			e = &r->e[i];
	if (!e)
		return -ENOSPC;
	if (n > DRM_RESTORE_CONNS)
		n = DRM_RESTORE_CONNS;
	/* Nobody replays an unused entry: it may be written at leisure. */
	e->fd = fd;
	e->crtc = *c;
	memset(&e->rot, 0, sizeof(e->rot));
	memcpy(e->conns, conns, n * sizeof(*conns));
	e->crtc.set_connectors_ptr = (uint64_t)(uintptr_t)e->conns;
	e->crtc.count_connectors = n;
	/* Release: the fields above are in memory before it is used (a
	 * handler in another thread, or after a SIGKILL the supervisor,
	 * reads them only after this). */
	atomic_store_explicit(&e->used, 1, memory_order_release);
	return 0;
}

int drm_restore_keep_rotation(struct drm_restore *r, int fd,
			      uint32_t crtc_id, uint32_t plane_id,
			      uint32_t prop, uint64_t value)
{
	struct entry *e = find(r, fd, crtc_id);

	if (!e)
		return -ENOENT;
	/* Before vncfb turns the plane (a reader before then finds it as
	 * it was, turned or not, which is what it puts back). */
	e->rot.value = value;
	e->rot.obj_id = plane_id;
	e->rot.obj_type = DRM_MODE_OBJECT_PLANE;
	e->rot.prop_id = prop;
	atomic_thread_fence(memory_order_release);
	return 0;
}

/* The plane straight again, as e keeps it (nothing when it keeps
 * none). Async-signal-safe. */
static void put_rotation(const struct entry *e)
{
	struct drm_mode_obj_set_property s = e->rot;

	if (s.prop_id)
		ioctl(e->fd, DRM_IOCTL_MODE_OBJ_SETPROPERTY, &s);
}

int drm_restore_put_back(struct drm_restore *r, int fd, uint32_t crtc_id)
{
	struct entry *e = find(r, fd, crtc_id);
	struct drm_mode_crtc c;
	int ret = 0;

	if (!e)
		return -ENOENT;
	/* A copy: the ioctl writes the struct back, and the mapping is
	 * shared. */
	c = e->crtc;
	if (!atomic_load(&r->away)) {
		put_rotation(e);
		if (ioctl(fd, DRM_IOCTL_MODE_SETCRTC, &c) < 0)
			ret = -errno;
	}
	/* Only once the CRTC is back: killed before this, the supervisor
	 * puts it back once more, which changes nothing. */
	atomic_store_explicit(&e->used, 0, memory_order_release);
	return ret;
}

void drm_restore_set_away(struct drm_restore *r, bool away)
{
	atomic_store(&r->away, away ? 1u : 0u);
}

int drm_restore_list(const struct drm_restore *r, int *fds, uint32_t *ids,
		     int max)
{
	int i, k = 0;

	for (i = 0; i < DRM_RESTORE_MAX && k < max; i++)
		if (atomic_load_explicit(&r->e[i].used, memory_order_acquire)) {
			fds[k] = r->e[i].fd;
			ids[k++] = r->e[i].crtc.crtc_id;
		}
	return k;
}

void drm_restore_run(const struct drm_restore *r)
{
	int i;

	if (!r || atomic_load(&r->away))
		return;
	for (i = 0; i < DRM_RESTORE_MAX; i++) {
		const struct entry *e = &r->e[i];
		struct drm_mode_crtc c;

		if (!atomic_load_explicit(&e->used, memory_order_acquire))
			continue;
		c = e->crtc;
		put_rotation(e);
		ioctl(e->fd, DRM_IOCTL_MODE_SETCRTC, &c);
	}
}
