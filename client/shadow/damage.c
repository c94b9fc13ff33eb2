/* Damage hand-off between decoder and blitter (TigerVNC viewer style:
 * lock, take, clear, unlock, then copy). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "util/clock.h"
#include "shadow/damage.h"

int damage_init(struct damage *d)
{
	pthread_condattr_t attr;
	int err;

	memset(d, 0, sizeof(*d));
	err = pthread_mutex_init(&d->lock, NULL);
	if (err)
		return -err;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	err = pthread_cond_init(&d->cond, &attr);
	pthread_condattr_destroy(&attr);
	if (err) {
		pthread_mutex_destroy(&d->lock);
		return -err;
	}
	return 0;
}

void damage_finish(struct damage *d)
{
	pthread_cond_destroy(&d->cond);
	pthread_mutex_destroy(&d->lock);
}

/* Extra area we accept when merging two touching rectangles: merging saves
 * per-rectangle overhead, so a little overdraw is worth it. */
static bool cheap_merge(const struct rect *a, const struct rect *b)
{
	struct rect u;

	if (!rect_touch(a, b))
		return false;
	rect_union(a, b, &u);
	return rect_area(&u) <= (rect_area(a) + rect_area(b)) * 5 / 4 + 4096;
}

static void remove_at(struct damage_set *s, int i)
{
	s->rects[i] = s->rects[--s->n];
}

void damage_set_add(struct damage_set *s, const struct rect *in)
{
	struct rect r = *in;
	int i, best = -1;
	int64_t best_growth = INT64_MAX;

	if (rect_empty(&r))
		return;
	/* Absorb everything r covers or cheaply merges with; repeat since a
	 * merged rectangle can reach new neighbours. */
	for (i = 0; i < s->n;) {
		struct rect u;

		if (cheap_merge(&s->rects[i], &r)) {
			rect_union(&s->rects[i], &r, &u);
			r = u;
			remove_at(s, i);
			i = 0;
			continue;
		}
		i++;
	}
	if (s->n < DAMAGE_MAX_RECTS) {
		s->rects[s->n++] = r;
		return;
	}
	for (i = 0; i < s->n; i++) {
		struct rect u;
		int64_t growth;

		rect_union(&s->rects[i], &r, &u);
		growth = rect_area(&u) - rect_area(&s->rects[i]);
		if (growth < best_growth) {
			best_growth = growth;
			best = i;
		}
	}
	rect_union(&s->rects[best], &r, &r);
	remove_at(s, best);
	damage_set_add(s, &r);
}

void damage_set_early(struct damage *d, uint64_t px)
{
	pthread_mutex_lock(&d->lock);
	d->early_px = px;
	pthread_mutex_unlock(&d->lock);
}

void damage_add(struct damage *d, const struct rect *r)
{
	pthread_mutex_lock(&d->lock);
	damage_set_add(&d->set, r);
	d->pending_px += (uint64_t)r->w * (uint64_t)r->h;
	if (d->early_px && !d->kicked && d->pending_px >= d->early_px) {
		d->kicked = true;
		pthread_cond_signal(&d->cond);
	}
	pthread_mutex_unlock(&d->lock);
}

static void kick_locked(struct damage *d)
{
	if (!d->set.kick_ns)
		d->set.kick_ns = monotonic_ns();
	d->set.kicks++;
	d->kicked = true;
	pthread_cond_signal(&d->cond);
}

void damage_kick(struct damage *d)
{
	pthread_mutex_lock(&d->lock);
	kick_locked(d);
	pthread_mutex_unlock(&d->lock);
}

uint64_t damage_waiting_since(struct damage *d)
{
	uint64_t t;

	pthread_mutex_lock(&d->lock);
	t = d->kicked ? d->set.kick_ns : 0;
	pthread_mutex_unlock(&d->lock);
	return t;
}

void damage_add_kick(struct damage *d, const struct rect *r)
{
	pthread_mutex_lock(&d->lock);
	damage_set_add(&d->set, r);
	kick_locked(d);
	pthread_mutex_unlock(&d->lock);
}

void damage_stop(struct damage *d)
{
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

int damage_take(struct damage *d, struct damage_set *out, int timeout_ms)
{
	struct timespec deadline;
	int n;

	if (timeout_ms >= 0)
		deadline = deadline_in_ms(CLOCK_MONOTONIC, timeout_ms);
	pthread_mutex_lock(&d->lock);
	while (!d->stop && !d->kicked) {
		if (timeout_ms < 0) {
			pthread_cond_wait(&d->cond, &d->lock);
		} else if (pthread_cond_timedwait(&d->cond, &d->lock,
						  &deadline) == ETIMEDOUT) {
			break;
		}
	}
	if (d->stop) {
		pthread_mutex_unlock(&d->lock);
		return -1;
	}
	if (!d->kicked) {
		pthread_mutex_unlock(&d->lock);
		out->n = 0;
		out->kick_ns = 0;
		out->kicks = 0;
		return 0;
	}
	*out = d->set;
	memset(&d->set, 0, sizeof(d->set));
	d->kicked = false;
	d->pending_px = 0;
	n = out->n;
	pthread_mutex_unlock(&d->lock);
	return n;
}

void damage_drain(struct damage *d, struct damage_set *out)
{
	pthread_mutex_lock(&d->lock);
	*out = d->set;
	memset(&d->set, 0, sizeof(d->set));
	d->kicked = false;
	d->pending_px = 0;
	pthread_mutex_unlock(&d->lock);
}
