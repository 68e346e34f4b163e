/* SPDX-License-Identifier: MIT */
/*
 * kfifo_bench.c - kfifo against memcpy and the lock-free rings a C or C++
 * programmer would pick instead, side by side in one run.
 *
 * Implementations (a peer whose headers were missing at build time is
 * reported as "not installed"):
 *   memcpy       one thread copies each chunk into a ring-sized buffer: the
 *                bandwidth limit of the same copy, without a second thread;
 *   kfifo        kfifo_in / kfifo_out, a byte stream;
 *   jack         JACK's jack_ringbuffer_write / _read, a byte stream;
 *   boost_bytes  boost::lockfree::spsc_queue<char>, push/pop of arrays;
 *   boost_elem   spsc_queue<chunk-sized struct>, one element per chunk;
 *   ck_elem      Concurrency Kit ck_ring, typed with CK_RING_PROTOTYPE for a
 *                chunk-sized struct: the element ring's natural equivalent
 *                of a chunk, copied in and out (a ring of pointers would
 *                not copy the data and would need a buffer pool besides).
 *   halves       the rings' copies through a ring-sized buffer handed over
 *                in two halves, one flag each: the copy-through
 *                reference of a stream between two threads (not a fifo;
 *                see halves_stream()).
 * Workloads:
 *   stream       two threads, one producer one consumer, N bytes in chunks
 *                of 8, 16 (the "16-byte messages"), 64, 512, 4096, 65536;
 *                every ring is ~1 MiB;
 *   records      kfifo records of 16 bytes (recsize 1) and 1000 bytes
 *                (recsize 2), two threads, against kfifo's byte stream of
 *                the same chunk;
 *   pingpong     one thread, 16 bytes in then out: nanoseconds per round
 *                trip;
 *   zerocopy     (--zerocopy, on its own) a producer that writes and a
 *                consumer that checks every byte, through kfifo_in/out,
 *                through kfifo's prepare/finish regions in place, and
 *                through JACK's read/write vectors in place; two threads
 *                streaming, and one thread filling then checking.
 * Each figure is the median of --reps repetitions; the repetitions run the
 * implementations in turn, so that a noisy neighbour hits all of them.
 *
 * Usage: kfifo-bench [--quick] [--reps N] [--scale F] [--zerocopy]
 *                    [--json FILE] [--md FILE]
 */
#define _GNU_SOURCE
#include <kfifo.h>

#include "bench_harness.h"
#include "bench_kfifo.h"

#ifdef KFIFO_BENCH_HAVE_JACK
#include <jack/ringbuffer.h>
#endif
#ifdef KFIFO_BENCH_HAVE_CK
#include <ck_ring.h>
#endif

/* ---- kfifo ------------------------------------------------------------ */

static void *kfifo_create(size_t bytes, size_t chunk)
{
	/* plain malloc(): struct kfifo pads @in and @out onto cache lines
	 * (and 128-byte pairs of lines) of their own wherever it lies */
	struct kfifo *f = malloc(sizeof(*f));

	(void)chunk;
	if (f == NULL || kfifo_alloc(f, (unsigned int)bytes, GFP_KERNEL) != 0)
		bench_fail("kfifo", "out of memory");
	return f;
}
static void kfifo_destroy(void *ctx)
{
	kfifo_free(ctx);
	free(ctx);
}
BENCH_KFIFO_BYTES(kfifo)

#define kfifo_rec1_create kfifo_create
#define kfifo_rec1_destroy kfifo_destroy
BENCH_KFIFO_RECORDS(kfifo_rec1, 1)

#define kfifo_rec2_create kfifo_create
#define kfifo_rec2_destroy kfifo_destroy
BENCH_KFIFO_RECORDS(kfifo_rec2, 2)

/* ---- JACK ------------------------------------------------------------- */

#ifdef KFIFO_BENCH_HAVE_JACK
static void *jack_create(size_t bytes, size_t chunk)
{
	/* jack_ringbuffer_create() rounds up to a power of two and keeps one
	 * byte free: ask for @bytes so the buffer is the same as kfifo's. */
	jack_ringbuffer_t *rb = jack_ringbuffer_create(bytes);

	(void)chunk;
	if (rb == NULL)
		bench_fail("jack", "out of memory");
	return rb;
}
static void jack_destroy(void *ctx)
{
	jack_ringbuffer_free(ctx);
}
static inline size_t jack_write(void *ctx, const void *p, size_t n)
{
	return jack_ringbuffer_write(ctx, p, n);
}
static inline size_t jack_read(void *ctx, void *p, size_t n)
{
	return jack_ringbuffer_read(ctx, p, n);
}
BENCH_DEFINE(jack)
#endif

/* ---- Concurrency Kit -------------------------------------------------- */

#ifdef KFIFO_BENCH_HAVE_CK
struct ck_ctx {
	struct ck_ring ring;
	void *buffer;
};

static void *ck_ctx_create(size_t bytes, size_t chunk)
{
	struct ck_ctx *c = aligned_alloc(64, sizeof(*c));
	/* ck_ring keeps one slot free, as JACK keeps one byte */
	unsigned int slots = (unsigned int)(bytes / chunk);

	if (slots < 2)
		slots = 2;
	c->buffer = aligned_alloc(64, (size_t)slots * chunk);
	if (c->buffer == NULL)
		bench_fail("ck", "out of memory");
	ck_ring_init(&c->ring, slots);
	return c;
}
static void ck_ctx_destroy(void *ctx)
{
	free(((struct ck_ctx *)ctx)->buffer);
	free(ctx);
}

#define CK_ELEM(N)                                                             \
	struct ck_chunk##N {                                                   \
		unsigned char b[N];                                            \
	};                                                                     \
	CK_RING_PROTOTYPE(chunk##N, ck_chunk##N)                               \
	static void *ck_elem##N##_create(size_t bytes, size_t chunk)           \
	{                                                                      \
		return ck_ctx_create(bytes, chunk);                            \
	}                                                                      \
	static void ck_elem##N##_destroy(void *ctx)                            \
	{                                                                      \
		ck_ctx_destroy(ctx);                                           \
	}                                                                      \
	static inline size_t ck_elem##N##_write(void *ctx, const void *p,      \
						size_t n)                      \
	{                                                                      \
		struct ck_ctx *c = ctx;                                        \
		(void)n;                                                       \
		return ck_ring_enqueue_spsc_chunk##N(                          \
			       &c->ring, c->buffer,                            \
			       (struct ck_chunk##N *)(uintptr_t)p)             \
			       ? N                                             \
			       : 0;                                            \
	}                                                                      \
	static inline size_t ck_elem##N##_read(void *ctx, void *p, size_t n)   \
	{                                                                      \
		struct ck_ctx *c = ctx;                                        \
		(void)n;                                                       \
		return ck_ring_dequeue_spsc_chunk##N(&c->ring, c->buffer, p)   \
			       ? N                                             \
			       : 0;                                            \
	}                                                                      \
	BENCH_DEFINE(ck_elem##N)

CK_ELEM(8)
CK_ELEM(16)
CK_ELEM(64)
CK_ELEM(512)
CK_ELEM(4096)
CK_ELEM(65536)

static double (*ck_elem_stream_for(size_t chunk))(size_t, size_t, uint64_t)
{
	switch (chunk) {
	case 8: return ck_elem8_stream;
	case 16: return ck_elem16_stream;
	case 64: return ck_elem64_stream;
	case 512: return ck_elem512_stream;
	case 4096: return ck_elem4096_stream;
	case 65536: return ck_elem65536_stream;
	}
	return NULL;
}
#endif

/* ---- Boost (peer_boost.cpp) ------------------------------------------- */

#ifdef KFIFO_BENCH_HAVE_BOOST
double boost_bytes_stream(size_t ring, size_t chunk, uint64_t total);
double boost_bytes_pingpong(size_t chunk, uint64_t rounds);
double boost_elem16_pingpong(size_t chunk, uint64_t rounds);
double (*boost_elem_stream_for(size_t chunk))(size_t, size_t, uint64_t);
const char *boost_version(void);
#endif

/* ---- memcpy: the same copies in one thread ---------------------------- */

static unsigned char *memcpy_ring;
static volatile unsigned char memcpy_sink;

static double memcpy_stream(size_t ring, size_t chunk, uint64_t total)
{
	unsigned char *src = malloc(chunk);
	size_t off = 0;
	uint64_t left;
	double t0, t1;

	memcpy_ring = malloc(ring);
	memset(src, 0x5a, chunk);
	memset(memcpy_ring, 0, ring);
	t0 = bench_now();
	for (left = total - total % chunk; left; left -= chunk) {
		src[0] = (unsigned char)left;
		memcpy(memcpy_ring + off, src, chunk);
		off = (off + chunk) & (ring - 1);
	}
	t1 = bench_now();
	memcpy_sink = memcpy_ring[0];
	free(memcpy_ring);
	free(src);
	return t1 - t0;
}

static double memcpy_pingpong(size_t chunk, uint64_t rounds)
{
	unsigned char src[64], dst[64];
	uint64_t i;
	double t0, t1;

	memcpy_ring = malloc(4096);
	memset(src, 0x5a, sizeof(src));
	t0 = bench_now();
	for (i = 0; i < rounds; i++) {
		src[0] = (unsigned char)i;
		memcpy(memcpy_ring + (i * chunk & 4095), src, chunk);
		__asm__ __volatile__("" ::: "memory");
		memcpy(dst, memcpy_ring + (i * chunk & 4095), chunk);
		__asm__ __volatile__("" ::: "memory");
	}
	t1 = bench_now();
	memcpy_sink = dst[0];
	free(memcpy_ring);
	return t1 - t0;
}

/* ---- halves: what the memory system allows two threads ------------------ */

/*
 * The same copies as the rings, in one thread and out in another, through
 * a ring-sized buffer handed over in two halves with one flag each: one
 * hand-over per half (512 KiB) instead of one per call, so what crosses
 * between the cores is the data's lines and almost nothing else.  Not a
 * fifo (nothing is visible before its half is full or the stream ends):
 * the copy-through reference of a stream between two cores, for the chunks
 * where every ring is already level with every other (docs/performance.md).
 * A reference, not a bound: a ring handing over 64 KiB chunks can pass it
 * (kfifo did, 1.09-1.22x, on the 2-core EPYC VM), its data still in the
 * caches when the other side reads it, where a 512 KiB half may not be.
 */
struct halves {
	unsigned char *buf;
	size_t half, chunk;
	uint64_t total;
	size_t fill[2];   /* bytes in the half, written before its flag */
	int full[2];      /* atomic: 1 while the consumer owns the half */
	struct bench_stream_arg a;
};

static void *halves_producer(void *p)
{
	struct halves *h = (struct halves *)p;
	unsigned char *src = (unsigned char *)malloc(h->chunk);
	uint64_t left = h->total;
	unsigned char seq = 0;
	int k = 0;

	memset(src, 0x5a, h->chunk);
	bench_pin(0);
	bench_wait_go(&h->a);
	while (left) {
		unsigned char *dst = h->buf + (size_t)k * h->half;
		size_t off = 0;

		while (__atomic_load_n(&h->full[k], __ATOMIC_ACQUIRE))
			bench_relax();
		for (; off + h->chunk <= h->half && left; left -= h->chunk) {
			src[0] = seq++;
			memcpy(dst + off, src, h->chunk);
			off += h->chunk;
		}
		h->fill[k] = off;
		__atomic_store_n(&h->full[k], 1, __ATOMIC_RELEASE);
		k ^= 1;
	}
	free(src);
	return NULL;
}

static void *halves_consumer(void *p)
{
	struct halves *h = (struct halves *)p;
	unsigned char *dst = (unsigned char *)malloc(h->chunk);
	uint64_t left = h->total;
	unsigned char seq = 0;
	int k = 0;

	bench_pin(1);
	bench_wait_go(&h->a);
	while (left) {
		const unsigned char *src = h->buf + (size_t)k * h->half;
		size_t off;

		while (!__atomic_load_n(&h->full[k], __ATOMIC_ACQUIRE))
			bench_relax();
		for (off = 0; off < h->fill[k]; off += h->chunk) {
			memcpy(dst, src + off, h->chunk);
			if (dst[0] != seq++)
				h->a.bad = 1;
			left -= h->chunk;
		}
		__atomic_store_n(&h->full[k], 0, __ATOMIC_RELEASE);
		k ^= 1;
	}
	free(dst);
	return NULL;
}

static double halves_stream(size_t ring, size_t chunk, uint64_t total)
{
	static struct halves h;
	pthread_t prod, cons;
	double t0, t1;

	memset(&h, 0, sizeof(h));
	h.half = ring / 2;
	if (chunk > h.half)
		bench_fail("halves", "chunk larger than half the ring");
	h.buf = malloc(ring);
	if (h.buf == NULL)
		bench_fail("halves", "out of memory");
	memset(h.buf, 0, ring);
	h.chunk = chunk;
	h.total = total - total % chunk;
	pthread_create(&cons, NULL, halves_consumer, &h);
	pthread_create(&prod, NULL, halves_producer, &h);
	while (__atomic_load_n(&h.a.ready, __ATOMIC_ACQUIRE) < 2)
		sched_yield();
	t0 = bench_now();
	__atomic_store_n(&h.a.go, 1, __ATOMIC_RELEASE);
	pthread_join(prod, NULL);
	pthread_join(cons, NULL);
	t1 = bench_now();
	free(h.buf);
	if (h.a.bad)
		bench_fail("halves", "data arrived out of order");
	return t1 - t0;
}

/* ---- the runs --------------------------------------------------------- */

typedef double (*stream_fn)(size_t, size_t, uint64_t);
typedef double (*pingpong_fn)(size_t, uint64_t);

#define MAX_REPS 64
#define RING (1u << 20)

static const size_t chunks[] = { 8, 16, 64, 512, 4096, 65536 };
#define NCHUNKS (sizeof(chunks) / sizeof(chunks[0]))

enum { I_MEMCPY, I_KFIFO, I_JACK, I_BOOST_BYTES, I_BOOST_ELEM, I_CK_ELEM, I_HALVES,
       NIMPL };
static const char *const impl_names[NIMPL] = {
	"memcpy", "kfifo", "jack", "boost_bytes", "boost_elem", "ck_elem", "halves"
};

static stream_fn stream_for(int impl, size_t chunk)
{
	(void)chunk;
	switch (impl) {
	case I_MEMCPY: return memcpy_stream;
	case I_KFIFO: return kfifo_stream;
#ifdef KFIFO_BENCH_HAVE_JACK
	case I_JACK: return jack_stream;
#endif
#ifdef KFIFO_BENCH_HAVE_BOOST
	case I_BOOST_BYTES: return boost_bytes_stream;
	case I_BOOST_ELEM: return boost_elem_stream_for(chunk);
#endif
#ifdef KFIFO_BENCH_HAVE_CK
	case I_CK_ELEM: return ck_elem_stream_for(chunk);
#endif
	case I_HALVES: return halves_stream;
	}
	return NULL;
}

static pingpong_fn pingpong_for(int impl)
{
	switch (impl) {
	case I_MEMCPY: return memcpy_pingpong;
	case I_KFIFO: return kfifo_pingpong;
#ifdef KFIFO_BENCH_HAVE_JACK
	case I_JACK: return jack_pingpong;
#endif
#ifdef KFIFO_BENCH_HAVE_BOOST
	case I_BOOST_BYTES: return boost_bytes_pingpong;
	case I_BOOST_ELEM: return boost_elem16_pingpong;
#endif
#ifdef KFIFO_BENCH_HAVE_CK
	case I_CK_ELEM: return ck_elem16_pingpong;
#endif
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	double s[MAX_REPS];

	memcpy(s, v, (size_t)n * sizeof(*v));
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* The median over the repetitions of a[k] / b[k]: paired runs. */
static double paired_ratio(const double *a, const double *b, int n)
{
	double q[MAX_REPS];
	int k;

	for (k = 0; k < n; k++)
		q[k] = b[k] > 0 ? a[k] / b[k] : 0;
	return median(q, n);
}

/* Bytes moved per run: enough for ~0.1-0.3 s at the speeds seen here. */
static uint64_t stream_total(size_t chunk, double scale)
{
	uint64_t t = chunk <= 8    ? 8ull << 20
		   : chunk <= 16   ? 16ull << 20
		   : chunk <= 64   ? 64ull << 20
				   : 256ull << 20;

	t = (uint64_t)((double)t * scale);
	return t < chunk * 64 ? chunk * 64 : t;
}

struct results {
	double stream[NIMPL][NCHUNKS][MAX_REPS]; /* GB/s */
	double rec[4][MAX_REPS];                 /* Mops/s */
	double ping[NIMPL][MAX_REPS];            /* ns per round trip */
};

/* records: kfifo rec 16 (recsize 1), kfifo bytes 16, rec 1000 (recsize 2),
 * kfifo bytes 1000 */
static const char *const rec_names[4] = { "kfifo records 16 B (recsize 1)",
					  "kfifo bytes 16 B",
					  "kfifo records 1000 B (recsize 2)",
					  "kfifo bytes 1000 B" };
static const size_t rec_sizes[4] = { 16, 16, 1000, 1000 };
static const stream_fn rec_fns[4] = { kfifo_rec1_stream, kfifo_stream,
				      kfifo_rec2_stream, kfifo_stream };

static void cpu_model(char *buf, size_t n)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, n, "unknown");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (strncmp(line, "model name", 10) == 0 && c) {
			snprintf(buf, n, "%s", c + 2);
			buf[strcspn(buf, "\n")] = 0;
			break;
		}
	}
	fclose(f);
}

/* The 1-minute load average: a shared machine's other work shows here. */
static double loadavg(void)
{
	double l[1] = { -1 };

	return getloadavg(l, 1) == 1 ? l[0] : -1;
}

static double load_before, load_after;

static const char *impl_version(int impl)
{
	switch (impl) {
	case I_MEMCPY:
	case I_HALVES: return "libc";
	case I_KFIFO: return KFIFO_VERSION_STRING;
#ifdef KFIFO_BENCH_HAVE_JACK
	case I_JACK: return KFIFO_BENCH_JACK_VERSION;
#endif
#ifdef KFIFO_BENCH_HAVE_BOOST
	case I_BOOST_BYTES:
	case I_BOOST_ELEM: return boost_version();
#endif
#ifdef KFIFO_BENCH_HAVE_CK
	case I_CK_ELEM: return KFIFO_BENCH_CK_VERSION;
#endif
	}
	return NULL;
}

static void print_cell(FILE *o, double v, const char *fmt)
{
	if (v < 0)
		fprintf(o, " n/a |");
	else
		fprintf(o, fmt, v);
}

static void write_markdown(FILE *o, struct results *r, int reps, double scale,
			   const char *cpu, long cores)
{
	time_t now = time(NULL);
	char date[64];
	int i;
	size_t c;

	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	fprintf(o, "## C: kfifo vs memcpy and the lock-free rings\n\n");
	fprintf(o, "%s; %s, %ld cores; %s; medians of %d repetitions "
		   "(scale %.3g); ring 1 MiB.  Ratios are medians of the "
		   "ratios of paired runs (the implementations run in turn), "
		   "kfifo's figure over the peer's.\n\n",
		date, cpu, cores, "compiler " __VERSION__, reps, scale);
	fprintf(o, "Load average (1 min) %.2f before, %.2f after: above 0 means "
		   "other work shared the %ld cores, and two-thread figures "
		   "suffer most.\n\n",
		load_before, load_after, cores);
	fprintf(o, "Versions:");
	for (i = 0; i < NIMPL; i++) {
		const char *v = impl_version(i);

		fprintf(o, " %s %s%s", impl_names[i], v ? v : "not installed",
			i + 1 < NIMPL ? "," : ".\n\n");
	}

	fprintf(o, "### Two threads streaming (GB/s; memcpy is one thread, "
		   "halves the two threads' copy-through reference)\n\n| chunk |");
	for (i = 0; i < NIMPL; i++)
		fprintf(o, " %s |", impl_names[i]);
	for (i = 0; i < NIMPL; i++)
		if (i != I_KFIFO)
			fprintf(o, " kfifo/%s |", impl_names[i]);
	fprintf(o, "\n|---:|");
	for (i = 0; i < 2 * NIMPL - 1; i++)
		fprintf(o, "---:|");
	fprintf(o, "\n");
	for (c = 0; c < NCHUNKS; c++) {
		double m[NIMPL];

		fprintf(o, "| %zu |", chunks[c]);
		for (i = 0; i < NIMPL; i++) {
			m[i] = stream_for(i, chunks[c])
				       ? median(r->stream[i][c], reps)
				       : -1;
			print_cell(o, m[i], " %.3f |");
		}
		for (i = 0; i < NIMPL; i++)
			if (i != I_KFIFO)
				print_cell(o, m[i] > 0 ? paired_ratio(
						       r->stream[I_KFIFO][c],
						       r->stream[i][c], reps)
						       : -1,
					   " %.2f× |");
		fprintf(o, "\n");
	}

	fprintf(o, "\n### 16-byte messages, two threads (million messages/s)\n\n"
		   "| impl | Mmsg/s | kfifo/impl |\n|---|---:|---:|\n");
	for (i = 1; i < I_HALVES; i++) {
		double gb = stream_for(i, 16) ? median(r->stream[i][1], reps)
					      : -1;
		fprintf(o, "| %s |", impl_names[i]);
		print_cell(o, gb > 0 ? gb * 1e3 / 16 : -1, " %.2f |");
		print_cell(o, gb > 0 ? paired_ratio(r->stream[I_KFIFO][1],
						    r->stream[i][1], reps)
				     : -1,
			   " %.2f× |");
		fprintf(o, "\n");
	}

	fprintf(o, "\n### kfifo records, two threads\n\n"
		   "| workload | Mops/s | GB/s |\n|---|---:|---:|\n");
	for (i = 0; i < 4; i++) {
		double ops = median(r->rec[i], reps);

		fprintf(o, "| %s | %.2f | %.3f |\n", rec_names[i], ops,
			ops * (double)rec_sizes[i] / 1e3);
	}

	fprintf(o, "\n### One thread, 16 bytes in then out (ns per round trip)\n\n"
		   "| impl | ns | impl/kfifo time |\n|---|---:|---:|\n");
	for (i = 0; i < NIMPL; i++) {
		double ns = pingpong_for(i) ? median(r->ping[i], reps) : -1;
		fprintf(o, "| %s |", impl_names[i]);
		print_cell(o, ns, " %.2f |");
		print_cell(o, ns > 0 ? paired_ratio(r->ping[i], r->ping[I_KFIFO],
						    reps)
				     : -1,
			   " %.2f× |");
		fprintf(o, "\n");
	}
	fprintf(o, "\n");
}

static void json_array(FILE *o, const double *v, int n)
{
	int i;

	fprintf(o, "[");
	for (i = 0; i < n; i++)
		fprintf(o, "%s%.6g", i ? ", " : "", v[i]);
	fprintf(o, "]");
}

static void write_json(FILE *o, struct results *r, int reps, double scale,
		       const char *cpu, long cores)
{
	int i, first = 1;
	size_t c;

	fprintf(o, "{\n  \"cpu\": \"%s\",\n  \"cores\": %ld,\n  \"reps\": %d,\n"
		   "  \"scale\": %g,\n  \"compiler\": \"%s\",\n  \"ring\": %u,\n"
		   "  \"time\": %ld,\n  \"loadavg\": [%.2f, %.2f],\n"
		   "  \"versions\": {",
		cpu, cores, reps, scale, __VERSION__, RING, (long)time(NULL),
		load_before, load_after);
	for (i = 0; i < NIMPL; i++) {
		const char *v = impl_version(i);

		fprintf(o, "%s\"%s\": %s%s%s", i ? ", " : "", impl_names[i],
			v ? "\"" : "", v ? v : "null", v ? "\"" : "");
	}
	fprintf(o, "},\n  \"stream_gbps\": [");
	for (i = 0; i < NIMPL; i++)
		for (c = 0; c < NCHUNKS; c++) {
			if (!stream_for(i, chunks[c]))
				continue;
			fprintf(o, "%s\n    {\"impl\": \"%s\", \"chunk\": %zu, "
				   "\"median\": %.6g, \"kfifo_ratio\": %.6g, "
				   "\"all\": ",
				first ? "" : ",", impl_names[i], chunks[c],
				median(r->stream[i][c], reps),
				paired_ratio(r->stream[I_KFIFO][c],
					     r->stream[i][c], reps));
			json_array(o, r->stream[i][c], reps);
			fprintf(o, "}");
			first = 0;
		}
	fprintf(o, "\n  ],\n  \"records_mops\": [");
	for (i = 0; i < 4; i++) {
		fprintf(o, "%s\n    {\"name\": \"%s\", \"size\": %zu, "
			   "\"median\": %.6g, \"all\": ",
			i ? "," : "", rec_names[i], rec_sizes[i],
			median(r->rec[i], reps));
		json_array(o, r->rec[i], reps);
		fprintf(o, "}");
	}
	fprintf(o, "\n  ],\n  \"pingpong16_ns\": [");
	first = 1;
	for (i = 0; i < NIMPL; i++) {
		if (!pingpong_for(i))
			continue;
		fprintf(o, "%s\n    {\"impl\": \"%s\", \"median\": %.6g, "
			   "\"all\": ",
			first ? "" : ",", impl_names[i],
			median(r->ping[i], reps));
		json_array(o, r->ping[i], reps);
		fprintf(o, "}");
		first = 0;
	}
	fprintf(o, "\n  ]\n}\n");
}

/* ---- zero-copy: filling and checking in place ------------------------- */

/*
 * --zerocopy: the same useful work done through three interfaces.  The
 * producer writes every byte of each chunk (the chunk's sequence number),
 * the consumer checks every byte.  With kfifo_in/kfifo_out (zc_copy) that
 * happens in a chunk-sized buffer on each side and the ring copies it in
 * and out; with kfifo_in_prepare/_finish and kfifo_out_prepare/_finish
 * (zc_kfifo) and with JACK's jack_ringbuffer_get_write_vector/_advance and
 * get_read_vector/_advance (zc_jack) it happens in the ring itself, in the
 * one or two regions it describes.  Ring 1 MiB; two threads (a stream,
 * wall-clock time), and one thread that fills a chunk and then checks it
 * (timed by the thread's CPU clock: no second core needed, so it shows the
 * cost of the calls and the copies even on a busy machine).
 */
enum { Z_COPY, Z_KFIFO, Z_JACK, NZC };
static const char *const zc_names[NZC] = { "kfifo in/out (copies)",
					   "kfifo prepare/finish",
					   "jack write/read vectors" };
static const char *const zc_keys[NZC] = { "kfifo_copy", "kfifo_zerocopy",
					  "jack_vectors" };

/* One side's state: the ring, a chunk buffer (zc_copy only), errors. */
struct zc_side {
	void *ctx;
	unsigned char *buf;
	size_t chunk;
	unsigned long bad;
};

/* 1 if a byte of @p is not @seq, else 0; eight bytes at a time, so that
 * the check costs about what the fill costs. */
static inline unsigned long zc_check(const unsigned char *p, size_t n,
				     unsigned char seq)
{
	uint64_t pat = 0x0101010101010101ull * seq, acc = 0, w;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		acc |= w ^ pat;
	}
	for (; i < n; i++)
		acc |= (uint64_t)(p[i] ^ seq);
	return acc != 0;
}

/* Each NAME_put writes chunk @seq, each NAME_get takes and checks it,
 * waiting (bench_relax) while the ring has no room or no data. */
static inline void zc_copy_put(struct zc_side *s, unsigned char seq)
{
	size_t done = 0;

	memset(s->buf, seq, s->chunk);
	while (done < s->chunk) {
		size_t w = kfifo_in(s->ctx, s->buf + done,
				    (unsigned int)(s->chunk - done));
		if (w == 0)
			bench_relax();
		done += w;
	}
}

static inline void zc_copy_get(struct zc_side *s, unsigned char seq)
{
	size_t done = 0;

	while (done < s->chunk) {
		size_t r = kfifo_out(s->ctx, s->buf + done,
				     (unsigned int)(s->chunk - done));
		if (r == 0)
			bench_relax();
		done += r;
	}
	s->bad += zc_check(s->buf, s->chunk, seq);
}

static inline void zc_kfifo_put(struct zc_side *s, unsigned char seq)
{
	size_t done = 0;

	while (done < s->chunk) {
		struct kfifo_region r[2];
		unsigned int k = kfifo_in_prepare(
			s->ctx, r, (unsigned int)(s->chunk - done));

		if (k == 0) {
			bench_relax();
			continue;
		}
		memset(r[0].data, seq, r[0].len);
		memset(r[1].data, seq, r[1].len);
		done += kfifo_in_finish(s->ctx, k);
	}
}

static inline void zc_kfifo_get(struct zc_side *s, unsigned char seq)
{
	size_t done = 0;

	while (done < s->chunk) {
		struct kfifo_region r[2];
		unsigned int k = kfifo_out_prepare(
			s->ctx, r, (unsigned int)(s->chunk - done));

		if (k == 0) {
			bench_relax();
			continue;
		}
		s->bad += zc_check(r[0].data, r[0].len, seq) +
			  zc_check(r[1].data, r[1].len, seq);
		done += kfifo_out_finish(s->ctx, k);
	}
}

#ifdef KFIFO_BENCH_HAVE_JACK
/* JACK describes all the free space (or all the data): take what the chunk
 * still needs of it. */
static inline size_t zc_jack_take(jack_ringbuffer_data_t *v, size_t need)
{
	if (v[0].len > need)
		v[0].len = need;
	if (v[1].len > need - v[0].len)
		v[1].len = need - v[0].len;
	return v[0].len + v[1].len;
}

static inline void zc_jack_put(struct zc_side *s, unsigned char seq)
{
	size_t done = 0;

	while (done < s->chunk) {
		jack_ringbuffer_data_t v[2];
		size_t k;

		jack_ringbuffer_get_write_vector(s->ctx, v);
		k = zc_jack_take(v, s->chunk - done);
		if (k == 0) {
			bench_relax();
			continue;
		}
		memset(v[0].buf, seq, v[0].len);
		memset(v[1].buf, seq, v[1].len);
		jack_ringbuffer_write_advance(s->ctx, k);
		done += k;
	}
}

static inline void zc_jack_get(struct zc_side *s, unsigned char seq)
{
	size_t done = 0;

	while (done < s->chunk) {
		jack_ringbuffer_data_t v[2];
		size_t k;

		jack_ringbuffer_get_read_vector(s->ctx, v);
		k = zc_jack_take(v, s->chunk - done);
		if (k == 0) {
			bench_relax();
			continue;
		}
		s->bad += zc_check((unsigned char *)v[0].buf, v[0].len, seq) +
			  zc_check((unsigned char *)v[1].buf, v[1].len, seq);
		jack_ringbuffer_read_advance(s->ctx, k);
		done += k;
	}
}
#endif

struct zc_arg {
	void *ctx;
	size_t chunk;
	uint64_t total;
	int go, ready;
	unsigned long bad;
};

static void zc_wait_go(struct zc_arg *a)
{
	__atomic_add_fetch(&a->ready, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&a->go, __ATOMIC_ACQUIRE))
		bench_relax();
}

/* The producer and consumer threads and the one-thread loop of NAME. */
#define ZC_DEFINE(NAME)                                                        \
	static void *NAME##_producer(void *p)                                  \
	{                                                                      \
		struct zc_arg *a = p;                                          \
		struct zc_side s = { a->ctx, malloc(a->chunk), a->chunk, 0 };  \
		uint64_t left;                                                 \
		unsigned char seq = 0;                                         \
		bench_pin(0);                                                  \
		zc_wait_go(a);                                                 \
		for (left = a->total; left; left -= a->chunk)                  \
			NAME##_put(&s, seq++);                                 \
		free(s.buf);                                                   \
		return NULL;                                                   \
	}                                                                      \
	static void *NAME##_consumer(void *p)                                  \
	{                                                                      \
		struct zc_arg *a = p;                                          \
		struct zc_side s = { a->ctx, malloc(a->chunk), a->chunk, 0 };  \
		uint64_t left;                                                 \
		unsigned char seq = 0;                                         \
		bench_pin(1);                                                  \
		zc_wait_go(a);                                                 \
		for (left = a->total; left; left -= a->chunk)                  \
			NAME##_get(&s, seq++);                                 \
		a->bad = s.bad;                                                \
		free(s.buf);                                                   \
		return NULL;                                                   \
	}                                                                      \
	static unsigned long NAME##_single(void *ctx, size_t chunk,            \
					   uint64_t total)                     \
	{                                                                      \
		struct zc_side w = { ctx, malloc(chunk), chunk, 0 };           \
		struct zc_side r = { ctx, malloc(chunk), chunk, 0 };           \
		uint64_t left;                                                 \
		unsigned char seq = 0;                                         \
		for (left = total; left; left -= chunk, seq++) {               \
			NAME##_put(&w, seq);                                   \
			NAME##_get(&r, seq);                                   \
		}                                                              \
		free(w.buf);                                                   \
		free(r.buf);                                                   \
		return r.bad;                                                  \
	}

ZC_DEFINE(zc_copy)
ZC_DEFINE(zc_kfifo)
#ifdef KFIFO_BENCH_HAVE_JACK
ZC_DEFINE(zc_jack)
#endif

static double zc_thread_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One run of @impl, two threads (wall-clock seconds) or one (CPU seconds
 * of the thread); -1 if not built. */
static double zc_run_once(int impl, int threads, size_t ring, size_t chunk,
			  uint64_t total)
{
	void *(*prod)(void *), *(*cons)(void *);
	unsigned long (*single)(void *, size_t, uint64_t);
	struct zc_arg a;
	pthread_t pt, ct;
	double t0, t1;

	memset(&a, 0, sizeof(a));
	a.chunk = chunk;
	a.total = total - total % chunk;
	switch (impl) {
	case Z_COPY:
		prod = zc_copy_producer;
		cons = zc_copy_consumer;
		single = zc_copy_single;
		a.ctx = kfifo_create(ring, chunk);
		break;
	case Z_KFIFO:
		prod = zc_kfifo_producer;
		cons = zc_kfifo_consumer;
		single = zc_kfifo_single;
		a.ctx = kfifo_create(ring, chunk);
		break;
#ifdef KFIFO_BENCH_HAVE_JACK
	case Z_JACK:
		prod = zc_jack_producer;
		cons = zc_jack_consumer;
		single = zc_jack_single;
		a.ctx = jack_create(ring, chunk);
		break;
#endif
	default:
		return -1;
	}
	if (threads == 1) {
		/* CPU time of this thread: on a shared machine the wall clock
		 * would also count the time slices other work took */
		t0 = zc_thread_cpu_now();
		a.bad = single(a.ctx, chunk, a.total);
		t1 = zc_thread_cpu_now();
	} else {
		pthread_create(&ct, NULL, cons, &a);
		pthread_create(&pt, NULL, prod, &a);
		while (__atomic_load_n(&a.ready, __ATOMIC_ACQUIRE) < 2)
			sched_yield();
		t0 = bench_now();
		__atomic_store_n(&a.go, 1, __ATOMIC_RELEASE);
		pthread_join(pt, NULL);
		pthread_join(ct, NULL);
		t1 = bench_now();
	}
	if (impl == Z_JACK) {
#ifdef KFIFO_BENCH_HAVE_JACK
		jack_destroy(a.ctx);
#endif
	} else {
		kfifo_destroy(a.ctx);
	}
	if (a.bad)
		bench_fail(zc_names[impl], "a chunk arrived with wrong bytes");
	return t1 - t0;
}

/* [threads - 1][impl][chunk][rep], GB/s; -1 when the impl is not built */
static double zc_gbps[2][NZC][NCHUNKS][MAX_REPS];

static void zc_table(FILE *o, int t, int reps)
{
	size_t c;
	int i;

	fprintf(o, "| chunk |");
	for (i = 0; i < NZC; i++)
		fprintf(o, " %s GB/s |", zc_names[i]);
	fprintf(o, " prepare/finish ÷ in/out | prepare/finish ÷ JACK vectors |\n"
		   "|---:|---:|---:|---:|---:|---:|\n");
	for (c = 0; c < NCHUNKS; c++) {
		double(*g)[NCHUNKS][MAX_REPS] = zc_gbps[t];

		fprintf(o, "| %zu |", chunks[c]);
		for (i = 0; i < NZC; i++)
			print_cell(o, g[i][c][0] > 0 ? median(g[i][c], reps) : -1,
				   " %.3f |");
		print_cell(o, paired_ratio(g[Z_KFIFO][c], g[Z_COPY][c], reps),
			   " %.2f× |");
		print_cell(o, g[Z_JACK][c][0] > 0
				      ? paired_ratio(g[Z_KFIFO][c], g[Z_JACK][c],
						     reps)
				      : -1,
			   " %.2f× |");
		fprintf(o, "\n");
	}
	fprintf(o, "\n");
}

static void zc_write_markdown(FILE *o, int reps, double scale, const char *cpu,
			      long cores)
{
	time_t now = time(NULL);
	char date[64];

	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	fprintf(o, "## C: zero-copy (kfifo prepare/finish vs kfifo in/out vs "
		   "JACK vectors)\n\n");
	fprintf(o, "%s; %s, %ld cores; compiler %s; medians of %d "
		   "repetitions (scale %.3g); ring 1 MiB.  The producer writes "
		   "every byte of each chunk, the consumer checks every byte: "
		   "in a chunk buffer of its own with kfifo_in/kfifo_out (which "
		   "copy), in the ring with kfifo_in_prepare/_finish + "
		   "kfifo_out_prepare/_finish and with "
		   "jack_ringbuffer_get_write_vector/_write_advance + "
		   "get_read_vector/_read_advance.  Ratios are medians of the "
		   "ratios of paired runs (the three run in turn, one "
		   "repetition each).\n\n",
		date, cpu, cores, __VERSION__, reps, scale);
	fprintf(o, "Load average (1 min) %.2f before, %.2f after: above 0 means "
		   "other work shared the %ld cores, and the two-thread figures "
		   "then depend on whether both threads got a core at once.  "
		   "Versions: kfifo %s, jack %s.\n\n",
		load_before, load_after, cores, KFIFO_VERSION_STRING,
		impl_version(I_JACK) ? impl_version(I_JACK) : "not installed");
	fprintf(o, "### Two threads streaming (GB/s)\n\n");
	zc_table(o, 1, reps);
	fprintf(o, "### One thread: fill a chunk, then check it (GB/s of the "
		   "thread's CPU time)\n\n");
	zc_table(o, 0, reps);
}

static void zc_write_json(FILE *o, int reps, double scale, const char *cpu,
			  long cores)
{
	int t, i, first = 1;
	size_t c;

	fprintf(o, "{\n  \"workload\": \"zerocopy\",\n  \"cpu\": \"%s\",\n"
		   "  \"cores\": %ld,\n  \"reps\": %d,\n  \"scale\": %g,\n"
		   "  \"compiler\": \"%s\",\n  \"ring\": %u,\n  \"time\": %ld,\n"
		   "  \"loadavg\": [%.2f, %.2f],\n  \"gbps\": [",
		cpu, cores, reps, scale, __VERSION__, RING, (long)time(NULL),
		load_before, load_after);
	for (t = 1; t >= 0; t--)
		for (i = 0; i < NZC; i++)
			for (c = 0; c < NCHUNKS; c++) {
				double *v = zc_gbps[t][i][c];

				if (v[0] <= 0)
					continue;
				fprintf(o, "%s\n    {\"threads\": %d, \"impl\": \"%s\", "
					   "\"chunk\": %zu, \"median\": %.6g, "
					   "\"zerocopy_ratio\": %.6g, \"all\": ",
					first ? "" : ",", t + 1, zc_keys[i],
					chunks[c], median(v, reps),
					paired_ratio(zc_gbps[t][Z_KFIFO][c], v,
						     reps));
				json_array(o, v, reps);
				fprintf(o, "}");
				first = 0;
			}
	fprintf(o, "\n  ]\n}\n");
}

static void zc_run(int reps, double scale, const char *md, const char *json)
{
	char cpu[256];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t c;
	int rep, i, t;

	cpu_model(cpu, sizeof(cpu));
	load_before = loadavg();
	for (t = 2; t >= 1; t--)
		for (c = 0; c < NCHUNKS; c++) {
			uint64_t total = stream_total(chunks[c], scale);
			double bytes = (double)(total - total % chunks[c]);

			fprintf(stderr, "kfifo-bench: zero-copy, %d thread%s, "
					"%zu-byte chunks\n",
				t, t > 1 ? "s" : "", chunks[c]);
			for (rep = 0; rep < reps; rep++)
				for (i = 0; i < NZC; i++) {
					double s = zc_run_once(i, t, RING,
							       chunks[c], total);

					zc_gbps[t - 1][i][c][rep] =
						s > 0 ? bytes / s / 1e9 : -1;
				}
		}
	load_after = loadavg();
	zc_write_markdown(stdout, reps, scale, cpu, cores);
	if (md) {
		FILE *o = fopen(md, "w");

		if (!o)
			bench_fail("output", md);
		zc_write_markdown(o, reps, scale, cpu, cores);
		fclose(o);
	}
	if (json) {
		FILE *o = fopen(json, "w");

		if (!o)
			bench_fail("output", json);
		zc_write_json(o, reps, scale, cpu, cores);
		fclose(o);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: kfifo-bench [--quick] [--reps N] [--scale F] "
			"[--only IMPL] [--zerocopy] [--json FILE] [--md FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct results r;
	int reps = 7, rep, i, ai;
	double scale = 1.0;
	const char *json = NULL, *md = NULL, *only = NULL;
	int zerocopy = 0;
	uint64_t rounds;
	char cpu[256];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t c;

	for (ai = 1; ai < argc; ai++) {
		if (!strcmp(argv[ai], "--quick")) {
			reps = 3;
			scale = 0.2;
		} else if (!strcmp(argv[ai], "--reps") && ai + 1 < argc) {
			reps = atoi(argv[++ai]);
		} else if (!strcmp(argv[ai], "--scale") && ai + 1 < argc) {
			scale = atof(argv[++ai]);
		} else if (!strcmp(argv[ai], "--zerocopy")) {
			zerocopy = 1;
		} else if (!strcmp(argv[ai], "--only") && ai + 1 < argc) {
			only = argv[++ai];
		} else if (!strcmp(argv[ai], "--json") && ai + 1 < argc) {
			json = argv[++ai];
		} else if (!strcmp(argv[ai], "--md") && ai + 1 < argc) {
			md = argv[++ai];
		} else {
			usage();
		}
	}
	if (reps < 1 || reps > MAX_REPS || !(scale > 0))
		usage();
	if (zerocopy) {
		zc_run(reps, scale, md, json);
		return 0;
	}
	cpu_model(cpu, sizeof(cpu));
	load_before = loadavg();
	rounds = (uint64_t)(5e6 * scale);
	if (rounds < 1000)
		rounds = 1000;

	/* Noise on shared machines comes in phases of seconds that slow every
	 * implementation at once, so the implementations take turns run by
	 * run, and the ratios are medians of these paired runs. */
	for (c = 0; c < NCHUNKS; c++) {
		uint64_t total = stream_total(chunks[c], scale);

		fprintf(stderr, "kfifo-bench: stream, %zu-byte chunks\n",
			chunks[c]);
		for (rep = 0; rep < reps; rep++)
			for (i = 0; i < NIMPL; i++) {
				stream_fn fn = stream_for(i, chunks[c]);

				if (!fn || (only && strcmp(only, impl_names[i]) &&
					    i != I_KFIFO))
					continue;
				r.stream[i][c][rep] =
					(double)total / fn(RING, chunks[c], total) /
					1e9;
			}
	}
	fprintf(stderr, "kfifo-bench: records\n");
	for (rep = 0; rep < reps; rep++)
		for (i = 0; i < 4; i++) {
			uint64_t total = (uint64_t)((double)(rec_sizes[i] << 21) *
						    scale);

			r.rec[i][rep] = (double)(total / rec_sizes[i]) /
					rec_fns[i](RING, rec_sizes[i], total) /
					1e6;
		}
	fprintf(stderr, "kfifo-bench: ping-pong\n");
	for (rep = 0; rep < reps; rep++)
		for (i = 0; i < NIMPL; i++) {
			pingpong_fn fn = pingpong_for(i);

			if (fn)
				r.ping[i][rep] = fn(16, rounds) * 1e9 /
						 (double)rounds;
		}

	load_after = loadavg();
	write_markdown(stdout, &r, reps, scale, cpu, cores);
	if (md) {
		FILE *o = fopen(md, "w");

		if (!o)
			bench_fail("output", md);
		write_markdown(o, &r, reps, scale, cpu, cores);
		fclose(o);
	}
	if (json) {
		FILE *o = fopen(json, "w");

		if (!o)
			bench_fail("output", json);
		write_json(o, &r, reps, scale, cpu, cores);
		fclose(o);
	}
	return 0;
}
