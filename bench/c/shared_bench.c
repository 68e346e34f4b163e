/* SPDX-License-Identifier: MIT */
/*
 * shared_bench.c - a stream across processes against the same stream
 * between two threads (a fifo in a MAP_SHARED mapping, fork()).
 *
 * One producer and one consumer move a stream through a fifo of the same
 * size, both blocking with the waits when the fifo is full or empty:
 *
 *   thread        two threads, an ordinary fifo (kfifo_alloc)
 *   thread-shm    two threads, two handles over one MAP_SHARED mapping
 *                 (what the shared layout costs without a second process)
 *   process       fork(): the child produces through its inherited handle,
 *                 the parent consumes through its own
 *
 * Workloads: 16-byte records (kfifo_in_rec / kfifo_out_rec, recsize 1,
 * the record's sequence number checked), and 4 KiB and 64 KiB chunks
 * (kfifo_in / kfifo_out, the byte count checked).  Each repeat runs the
 * three variants back to back in a rotating order (paired repeats); the
 * result is the median throughput of each, and the median of the per-
 * repeat ratios process / thread.
 *
 *   shared_bench [--reps N] [--fifo BYTES] [--scale X]
 *
 * bench/run-shared-bench.sh builds it (RelWithDebInfo) and runs it niced.
 */
#define _GNU_SOURCE
#include <kfifo.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum variant { V_THREAD, V_THREAD_SHM, V_PROCESS, V_COUNT };
static const char *const variant_names[V_COUNT] = { "thread", "thread-shm",
						    "process" };

struct workload {
	const char *name;
	unsigned int chunk;       /* 0: 16-byte records */
	unsigned long long bytes; /* payload per run at scale 1 */
};

static const struct workload workloads[] = {
	{ "16-byte records", 0, 64ull << 20 },
	{ "4 KiB chunks", 4096, 1ull << 30 },
	{ "64 KiB chunks", 65536, 2ull << 30 },
};
#define NWORK (sizeof(workloads) / sizeof(workloads[0]))
#define REC 16u
#define MAXREPS 99

static unsigned int fifo_size = 256u << 10;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The start line: one word in shared memory, so that neither side's
 * start-up (a thread's, a fork's) is timed. */
static unsigned int *go;

static void wait_go(void)
{
	while (!__atomic_load_n(go, __ATOMIC_ACQUIRE))
		;
}

struct side {
	struct kfifo *fifo;
	const struct workload *w;
	unsigned long long bytes;
};

/* Producer: the stream, then close. */
static int produce(struct side *s)
{
	static unsigned char chunk[65536];
	unsigned long long done = 0, seq = 0;
	struct kfifo *f = s->fifo;

	memset(chunk, 0x5a, sizeof(chunk));
	wait_go();
	if (s->w->chunk == 0) {
		while (done < s->bytes) {
			memcpy(chunk, &seq, sizeof(seq));
			while (kfifo_in_rec(f, chunk, REC, 1) != 0)
				if (kfifo_wait_avail(f, REC + 1, -1) != 0)
					return 1;
			seq++;
			done += REC;
		}
	} else {
		unsigned int want = s->w->chunk < fifo_size / 4 ? s->w->chunk
								 : fifo_size / 4;

		while (done < s->bytes) {
			unsigned int k = kfifo_in(f, chunk, s->w->chunk);

			if (k == 0 && kfifo_wait_avail(f, want, -1) != 0)
				return 1;
			done += k;
		}
	}
	kfifo_close(f);
	return 0;
}

static void *produce_thread(void *arg)
{
	return (void *)(long)produce(arg);
}

/* Consumer: until end of stream; returns the payload bytes it took, or 0
 * on a mismatch. */
static unsigned long long consume(struct side *s)
{
	static unsigned char buf[65536];
	unsigned long long done = 0, seq = 0, got;
	struct kfifo *f = s->fifo;
	unsigned int total;

	if (s->w->chunk == 0) {
		for (;;) {
			if (kfifo_out_rec(f, buf, sizeof(buf), 1, &total) == 0) {
				memcpy(&got, buf, sizeof(got));
				if (total != REC || got != seq)
					return 0;
				seq++;
				done += REC;
			} else if (kfifo_wait_rec(f, 1, -1) != 0) {
				break;
			}
		}
	} else {
		unsigned int want = s->w->chunk < fifo_size / 4 ? s->w->chunk
								 : fifo_size / 4;

		for (;;) {
			unsigned int k = kfifo_out(f, buf, s->w->chunk);

			done += k;
			if (k == 0 && kfifo_wait_len(f, want, -1) != 0 &&
			    kfifo_len(f) == 0)
				break;
		}
	}
	return done;
}

/* One run: the throughput in MB/s (1e6 bytes), or -1 on a failure. */
static double run(enum variant v, const struct workload *w,
		  unsigned long long bytes)
{
	size_t len = kfifo_shared_bytes(fifo_size);
	unsigned char *mem = NULL;
	struct kfifo a, b;
	struct side ps, cs;
	pthread_t th;
	pid_t pid = 0;
	unsigned long long got;
	double t0, t1;
	int status = 0;
	void *ret = NULL;

	__atomic_store_n(go, 0, __ATOMIC_RELEASE);
	if (v == V_THREAD) {
		if (kfifo_alloc(&a, fifo_size, KFIFO_GFP_KERNEL) != 0)
			return -1;
		b = a; /* unused */
	} else {
		mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED ||
		    kfifo_shared_create(&a, mem, len, fifo_size) != 0 ||
		    kfifo_shared_attach(&b, mem, len) != 0)
			return -1;
		/* touch the data area in both, as a long-running stream would */
		memset(mem + KFIFO_SHARED_OFF_DATA, 0, fifo_size);
	}
	ps.fifo = &a;
	cs.fifo = v == V_THREAD ? &a : &b;
	ps.w = cs.w = w;
	ps.bytes = cs.bytes = bytes;
	if (v == V_PROCESS) {
		fflush(NULL);
		pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0)
			_exit(produce(&ps));
	} else if (pthread_create(&th, NULL, produce_thread, &ps) != 0) {
		return -1;
	}
	usleep(20000); /* let the producer reach the start line */
	t0 = now_s();
	__atomic_store_n(go, 1, __ATOMIC_RELEASE);
	got = consume(&cs);
	t1 = now_s();
	if (v == V_PROCESS)
		waitpid(pid, &status, 0);
	else
		pthread_join(th, &ret);
	if (v == V_THREAD)
		kfifo_free(&a);
	else
		munmap(mem, len);
	if (got < bytes || status != 0 || ret != NULL) {
		fprintf(stderr, "shared_bench: %s, %s: %llu of %llu bytes\n",
			variant_names[v], w->name, got, bytes);
		return -1;
	}
	return (double)got / (t1 - t0) / 1e6;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static double median(const double *v, int n)
{
	double s[MAXREPS];

	memcpy(s, v, sizeof(double) * (size_t)n);
	qsort(s, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	double res[V_COUNT][MAXREPS], ratio[MAXREPS], ratio_shm[MAXREPS];
	double scale = 1.0;
	int reps = 7, i, r, k;
	size_t wi;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--fifo") && i + 1 < argc)
			fifo_size = (unsigned int)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--scale") && i + 1 < argc)
			scale = atof(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--reps N] [--fifo BYTES] [--scale X]\n",
				argv[0]);
			return 2;
		}
	}
	if (reps < 1 || reps > MAXREPS || kfifo_shared_bytes(fifo_size) == 0)
		return 2;
	go = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		  -1, 0);
	if (go == MAP_FAILED)
		return 2;
	printf("shared_bench: fifo %u bytes, %d paired repeats, kfifo %s, %ld CPUs online\n",
	       fifo_size, reps, KFIFO_VERSION_STRING, sysconf(_SC_NPROCESSORS_ONLN));
	printf("| workload | thread MB/s | thread-shm MB/s | process MB/s | process/thread | thread-shm/thread |\n");
	printf("|---|---:|---:|---:|---:|---:|\n");
	for (wi = 0; wi < NWORK; wi++) {
		const struct workload *w = &workloads[wi];
		unsigned long long bytes =
			(unsigned long long)((double)w->bytes * scale);

		for (r = 0; r < reps; r++) {
			for (k = 0; k < V_COUNT; k++) {
				enum variant v = (enum variant)((r + k) % V_COUNT);

				res[v][r] = run(v, w, bytes);
				if (res[v][r] < 0)
					return 1;
			}
			ratio[r] = res[V_PROCESS][r] / res[V_THREAD][r];
			ratio_shm[r] = res[V_THREAD_SHM][r] / res[V_THREAD][r];
		}
		printf("| %s | %.0f | %.0f | %.0f | %.2f | %.2f |\n", w->name,
		       median(res[V_THREAD], reps), median(res[V_THREAD_SHM], reps),
		       median(res[V_PROCESS], reps), median(ratio, reps),
		       median(ratio_shm, reps));
		fflush(stdout);
	}
	printf("(MB/s = 1e6 payload bytes per second, medians; ratios are medians of per-repeat ratios)\n");
	return 0;
}
