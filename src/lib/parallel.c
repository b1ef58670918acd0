/* parallel: items shared by this thread and one helper; see include/mmprof/parallel.h. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "mmprof/parallel.h"

struct pool {
	void (*fn)(void *ctx, size_t i);
	void *ctx;
	size_t n;
	_Atomic size_t next;
};

static void *pool__work(void *arg)
{
	struct pool *p = arg;
	size_t i;

	while ((i = atomic_fetch_add(&p->next, 1)) < p->n)
		p->fn(p->ctx, i);
	return NULL;
}

void parallel__each(size_t n, void (*fn)(void *ctx, size_t i), void *ctx)
{
	struct pool p = { .fn = fn, .ctx = ctx, .n = n };
	pthread_t helper;
	bool helped;

	atomic_init(&p.next, 0);
	helped = n > 1 && pthread_create(&helper, NULL, pool__work, &p) == 0;
	pool__work(&p);
	if (helped)
		pthread_join(helper, NULL);
}

static void *job__run(void *arg)
{
	struct parallel_job *j = arg;

	j->fn(j->arg);
	return NULL;
}

void parallel__start(struct parallel_job *j, void (*fn)(void *arg), void *arg)
{
	j->fn = fn;
	j->arg = arg;
	j->running = pthread_create(&j->thread, NULL, job__run, j) == 0;
	if (!j->running)
		fn(arg);
}

void parallel__wait(struct parallel_job *j)
{
	if (j->running)
		pthread_join(j->thread, NULL);
	j->running = false;
}
