/* Shadow buffer allocation, sized by the (already capped) remote desktop. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/guardmem.h"
#include "util/log.h"
#include "shadow/shadow.h"

int shadow_init(struct shadow *s, const struct pixfmt *fmt)
{
	int err;

	memset(s, 0, sizeof(*s));
	s->fmt = *fmt;
	err = pthread_mutex_init(&s->lock, NULL);
	return -err;
}

void shadow_finish(struct shadow *s)
{
	guard_free(s->mem);
	s->mem = NULL;
	s->pix = NULL;
	pthread_mutex_destroy(&s->lock);
}

uint8_t *shadow_resize(struct shadow *s, uint32_t w, uint32_t h)
{
	size_t stride = (size_t)w * pixfmt_bytes(&s->fmt);
	size_t size;
	uint8_t *mem, *pix;

	if (h != 0 && stride > SIZE_MAX / h) {
		log_error("remote desktop %ux%u is too large", w, h);
		return NULL;
	}
	size = stride * h;
	/* Room for libvncclient decoders that write a whole 32-bit word for
	 * the last pixel of a 16 bpp row, and for the alignment. calloc's
	 * zeroed pages of a large buffer cost nothing until touched, which
	 * aligned_alloc and a memset would not give. A guarded shadow
	 * (guardmem.h) ends at its guard page: no room, no alignment. */
	mem = guard_calloc(guard_pages() ? size : size + 64 + SHADOW_ALIGN);
	if (!mem) {
		log_error("cannot allocate %zu bytes for a %ux%u desktop",
			  size, w, h);
		return NULL;
	}
	pix = guard_pages()
		  ? mem
		  : mem + ((SHADOW_ALIGN - ((uintptr_t)mem & (SHADOW_ALIGN - 1))) &
			   (SHADOW_ALIGN - 1));
	shadow_lock(s);
	guard_free(s->mem);
	s->mem = mem;
	s->pix = pix;
	s->width = w;
	s->height = h;
	s->stride = stride;
	s->generation++;
	shadow_unlock(s);
	return pix;
}

void shadow_lock(struct shadow *s)
{
	pthread_mutex_lock(&s->lock);
}

void shadow_unlock(struct shadow *s)
{
	pthread_mutex_unlock(&s->lock);
}
