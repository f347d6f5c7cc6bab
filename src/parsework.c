/* parsework.c: see parsework.h. */
#include "config.h"

#include "parsework.h"
#include "functab.h"
#include "loop.h"
#include "profile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct parsework {
	struct loop *loop;
	struct functab *ft;          /* the session's table: main thread only */
	parsework_done_fn done;
	void *ud;
	int pipe_fd[2];              /* the worker writes one byte when it is done */
	bool watching;
	bool busy;
	pthread_t thread;
	/* The job: written by the main thread before the thread starts, by the worker after. */
	char *buf;
	const char *json;
	size_t len;
	struct functab *local;
	struct profile p;
	int rc;
	char *err;
};

static void *parsework_thread(void *arg)
{
	struct parsework *w = arg;
	char b = 1;

	w->rc = profile_parse(w->json, w->len, w->local, &w->p, &w->err);
	while (write(w->pipe_fd[1], &b, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

/* Maps the worker's function indices into the session's table. */
static void parsework_remap(struct parsework *w)
{
	size_t n = functab_count(w->local), i;
	uint32_t *map = xmalloc((n ? n : 1) * sizeof *map);

	for (i = 0; i < n; i++) {
		const struct func_info *fi = functab_get(w->local, (uint32_t)i);
		map[i] = functab_intern(w->ft, fi->name, strlen(fi->name), fi->url, strlen(fi->url),
			fi->line, fi->column);
		if (fi->deopt_reason)
			functab_set_deopt(w->ft, map[i], fi->deopt_reason, strlen(fi->deopt_reason));
	}
	for (i = 0; i < w->p.n_nodes; i++)
		w->p.nodes[i].func = map[w->p.nodes[i].func];
	free(map);
}

static void parsework_finish(struct parsework *w, bool deliver)
{
	pthread_join(w->thread, NULL);
	w->busy = false;
	free(w->buf);
	w->buf = NULL;
	if (deliver) {
		if (w->rc == 0) {
			parsework_remap(w);
			w->done(w->ud, &w->p, NULL);
		} else {
			w->done(w->ud, NULL, w->err ? w->err : "invalid profile");
		}
	}
	if (w->rc == 0)
		profile_release(&w->p);
	free(w->err);
	w->err = NULL;
	functab_free(w->local);
	w->local = NULL;
}

static void parsework_on_pipe(void *ud)
{
	struct parsework *w = ud;
	char b[16];

	while (read(w->pipe_fd[0], b, sizeof b) > 0)
		;
	if (w->busy)
		parsework_finish(w, true);
}

struct parsework *parsework_create(struct loop *l, struct functab *ft, parsework_done_fn done,
	void *ud)
{
	struct parsework *w = xcalloc(1, sizeof *w);
	int i;

	w->loop = l;
	w->ft = ft;
	w->done = done;
	w->ud = ud;
	w->pipe_fd[0] = w->pipe_fd[1] = -1;
	if (pipe(w->pipe_fd) == 0) {
		for (i = 0; i < 2; i++) {
			fcntl(w->pipe_fd[i], F_SETFL, fcntl(w->pipe_fd[i], F_GETFL) | O_NONBLOCK);
			fcntl(w->pipe_fd[i], F_SETFD, FD_CLOEXEC);
		}
		w->watching = loop_watch_fd(l, w->pipe_fd[0], parsework_on_pipe, w) == 0;
	}
	return w;
}

void parsework_free(struct parsework *w)
{
	if (!w)
		return;
	parsework_drop(w);
	if (w->pipe_fd[0] >= 0) {
		close(w->pipe_fd[0]);
		close(w->pipe_fd[1]);
	}
	free(w);
}

void parsework_drop(struct parsework *w)
{
	if (w->busy)
		parsework_finish(w, false);
}

bool parsework_busy(const struct parsework *w)
{
	return w->busy;
}

int parsework_submit(struct parsework *w, char *buf, const char *json, size_t len)
{
	if (w->busy || !w->watching)
		return -1;
	w->buf = buf;
	w->json = json;
	w->len = len;
	w->local = functab_create();
	w->rc = -1;
	w->err = NULL;
	memset(&w->p, 0, sizeof w->p);
	if (pthread_create(&w->thread, NULL, parsework_thread, w) != 0) {
		functab_free(w->local);
		w->local = NULL;
		w->buf = NULL;
		return -1;
	}
	w->busy = true;
	return 0;
}
