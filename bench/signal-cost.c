/* bench/signal-cost.c: what a SIGPROF every PERIOD us costs a busy thread on this machine (V8's
 * sampler interrupts the main thread so for each sample): work per CPU second of
 * the main thread with a sampler thread signalling it (pthread_kill, as V8's sampler does)
 * against without, alternating phases. Handler: touches a 4 KB buffer (a stack walk's reads).
 *
 * Build and run: cc -O2 -pthread -o signal-cost bench/signal-cost.c && ./signal-cost [ROUNDS]
 *                [PERIOD_US] [PHASE_S]   (defaults 10, 1000, 2; doc/benchmarks.md section 27) */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_t main_thread;
static atomic_int signalling, stop;
static long period_us;
static volatile uint64_t sink;
static char scratch[4096];
static atomic_long handled;

static void handler(int sig)
{
	(void)sig;
	uint64_t s = 0;
	for (size_t i = 0; i < sizeof scratch; i += 64)
		s += (unsigned char)scratch[i];
	sink += s;
	atomic_fetch_add(&handled, 1);
}

static void *sampler(void *arg)
{
	(void)arg;
	struct timespec ts = { 0, period_us * 1000 };
	while (!atomic_load(&stop)) {
		nanosleep(&ts, NULL);
		if (atomic_load(&signalling))
			pthread_kill(main_thread, SIGPROF);
	}
	return NULL;
}

static double now(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* work for secs of wall time: units done per CPU second of this thread */
static double phase(double secs)
{
	static uint64_t arr[1 << 16];
	double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
	uint64_t units = 0, x = 88172645463325252ull;
	while (now(CLOCK_MONOTONIC) - w0 < secs) {
		for (int i = 0; i < 4096; i++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			arr[x & ((1 << 16) - 1)] += x;
		}
		units++;
	}
	sink += arr[x & 1023];
	return units / (now(CLOCK_THREAD_CPUTIME_ID) - c0);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	period_us = argc > 2 ? atol(argv[2]) : 1000;
	double secs = argc > 3 ? atof(argv[3]) : 2;
	pthread_t t;
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	main_thread = pthread_self();
	pthread_create(&t, NULL, sampler, NULL);
	phase(1);
	double ratios[256], signals = 0;
	for (int r = 0; r < rounds && r < 256; r++) {
		double off, on;
		long h0;
		atomic_store(&signalling, 0);
		off = phase(secs);
		atomic_store(&signalling, 1);
		h0 = atomic_load(&handled);
		on = phase(secs);
		atomic_store(&signalling, 0);
		ratios[r] = on / off;
		signals += (atomic_load(&handled) - h0) / secs;
		printf("round %d: %.3f (%ld signals/s)\n", r, ratios[r], (long)((atomic_load(&handled) - h0) / secs));
	}
	for (int i = 0; i < rounds; i++)
		for (int j = i + 1; j < rounds; j++)
			if (ratios[j] < ratios[i]) { double x = ratios[i]; ratios[i] = ratios[j]; ratios[j] = x; }
	signals /= rounds;
	printf("median %.4f at %.0f signals/s: %.1f us of the thread per signal\n", ratios[rounds / 2],
		signals, (1 - ratios[rounds / 2]) * 1e6 / signals);
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	return 0;
}
