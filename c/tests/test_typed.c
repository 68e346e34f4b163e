/* SPDX-License-Identifier: MIT */
/*
 * test_typed.c - the kernel's typed API (kfifo.h, "the kernel's typed
 * API"): element fifos of element sizes 1, 2, 4, 8, 12 and a struct,
 * counted in elements, across the 2^32 wrap; records through the typed
 * calls; set-up rounding; a plain struct kfifo through the typed macros;
 * one producer and one consumer thread on a fifo of 12-byte elements.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime (test_threads.h) */
#define KFIFO_TYPED_API
#include <kfifo.h>

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "test_harness.h"
#include "test_threads.h" /* kt_budget_*: a producer's time budget */

typedef struct {
	uint32_t w[3];
} elem12_t;

struct sample {
	uint16_t id;
	uint8_t flag;
	double value;
};

/* the element of value @i, for each type (distinct in every byte) */
static void mk_u8(uint8_t *e, unsigned int i) { *e = (uint8_t)(i * 7 + 1); }
static void mk_u16(uint16_t *e, unsigned int i) { *e = (uint16_t)(i * 40503u + 3); }
static void mk_u32(uint32_t *e, unsigned int i) { *e = i * 2654435761u; }
static void mk_u64(uint64_t *e, unsigned int i)
{
	*e = (uint64_t)i * 0x9e3779b97f4a7c15ull;
}
static void mk_e12(elem12_t *e, unsigned int i)
{
	e->w[0] = i;
	e->w[1] = ~i;
	e->w[2] = i * 3u + 1;
}
static void mk_smp(struct sample *e, unsigned int i)
{
	memset(e, 0, sizeof(*e));
	e->id = (uint16_t)i;
	e->flag = (uint8_t)(i & 1);
	e->value = i * 0.5;
}

/*
 * One test per element type: a DECLARE_KFIFO fifo of 8 and a
 * DECLARE_KFIFO_PTR fifo allocated for 5 (rounded up to 8), each started
 * near 2^32, filled, drained, peeked, skipped and streamed through in
 * batches of every length from 1 to 8, with contents checked.
 */
#define TYPED_TEST(name, T, mk)                                                \
	static void test_elements_##name(void)                                 \
	{                                                                      \
		DECLARE_KFIFO(sf, T, 8);                                       \
		DECLARE_KFIFO_PTR(df, T);                                      \
		T a[8], b[8], v;                                               \
		unsigned int i, n, k, seq = 0, got = 0, tail;                  \
		T *lin;                                                        \
                                                                               \
		INIT_KFIFO(sf);                                                \
		CHECK_UINT(kfifo_esize(&sf), sizeof(T));                       \
		CHECK_UINT(kfifo_recsize(&sf), 0);                             \
		CHECK_UINT(kfifo_size(&sf), 8);                                \
		CHECK_INT(kfifo_alloc(&sf, 8, GFP_KERNEL), -EINVAL);           \
		CHECK_INT(kfifo_alloc(&df, 5, GFP_KERNEL), 0);                 \
		CHECK_UINT(kfifo_size(&df), 8);                                \
		CHECK(kfifo_initialized(&df));                                 \
		sf.kfifo.in = sf.kfifo.out = UINT_MAX - 2;                     \
		df.kfifo.in = df.kfifo.out = UINT_MAX - 5;                     \
		/* fill by value to the brim */                                \
		for (i = 0; i < 8; i++) {                                      \
			mk(&v, i);                                             \
			CHECK_UINT(kfifo_put(&sf, v), 1);                      \
			CHECK_UINT(kfifo_put(&df, v), 1);                      \
		}                                                              \
		mk(&v, 99);                                                    \
		CHECK_UINT(kfifo_put(&sf, v), 0);                              \
		CHECK(kfifo_is_full(&sf) && kfifo_is_full(&df));               \
		CHECK_UINT(kfifo_len(&sf), 8);                                 \
		CHECK_UINT(kfifo_avail(&sf), 0);                               \
		CHECK_UINT(kfifo_peek_len(&sf), 8 * sizeof(T));                \
		/* peek, skip one, skip two, out_peek the rest */              \
		CHECK_UINT(kfifo_peek(&sf, &v), 1);                            \
		mk(&a[0], 0);                                                  \
		CHECK_MEM(&v, &a[0], sizeof(T));                               \
		kfifo_skip(&sf);                                               \
		kfifo_skip_count(&sf, 2);                                      \
		CHECK_UINT(kfifo_len(&sf), 5);                                 \
		CHECK_UINT(kfifo_out_peek(&sf, b, 8), 5);                      \
		for (i = 0; i < 5; i++) {                                      \
			mk(&a[0], i + 3);                                      \
			CHECK_MEM(&b[i], &a[0], sizeof(T));                    \
		}                                                              \
		/* the linear part from the read position */                   \
		n = kfifo_out_linear(&sf, &tail, 8);                           \
		CHECK_UINT(tail, (UINT_MAX - 2 + 3) & 7u);                     \
		CHECK_UINT(n, tail + 5 <= 8 ? 5 : 8 - tail);                   \
		CHECK_UINT(kfifo_out_linear_ptr(&sf, &lin, 8), n);             \
		CHECK(lin == &sf.buf[tail]);                                   \
		/* get everything in order */                                  \
		for (i = 3; kfifo_get(&sf, &v); i++) {                         \
			mk(&a[0], i);                                          \
			CHECK_MEM(&v, &a[0], sizeof(T));                       \
		}                                                              \
		CHECK_UINT(i, 8);                                              \
		CHECK(kfifo_is_empty(&sf));                                    \
		CHECK_UINT(kfifo_get(&sf, &v), 0);                             \
		CHECK_UINT(kfifo_out(&df, b, 8), 8);                           \
		for (i = 0; i < 8; i++) {                                      \
			mk(&a[0], i);                                          \
			CHECK_MEM(&b[i], &a[0], sizeof(T));                    \
		}                                                              \
		/* a stream in batches of every length, across the wrap */     \
		for (k = 0; k < 200; k++) {                                    \
			n = k % 8 + 1;                                         \
			/* i < 8 is n's bound spelled out: gcc 12 -O3 does  */ \
			/* not see it and warns of a write past a[]          */ \
			for (i = 0; i < n && i < 8; i++)                       \
				mk(&a[i], seq + i);                            \
			tail = kfifo_avail(&sf);                               \
			i = kfifo_in(&sf, a, n);                               \
			CHECK_UINT(i, n < tail ? n : tail);                    \
			seq += i;                                              \
			n = kfifo_out(&sf, b, (k * 5) % 8 + 1);                \
			for (i = 0; i < n; i++) {                              \
				mk(&a[0], got + i);                            \
				CHECK_MEM(&b[i], &a[0], sizeof(T));            \
			}                                                      \
			got += n;                                              \
			CHECK(kfifo_valid(&sf.kfifo));                         \
			CHECK_UINT(kfifo_len(&sf), seq - got);                 \
		}                                                              \
		CHECK(seq > 200);                                              \
		kfifo_reset(&sf);                                              \
		CHECK(kfifo_is_empty(&sf));                                    \
		kfifo_free(&sf); /* not allocated: nothing happens */          \
		CHECK_UINT(kfifo_size(&sf), 8);                                \
		kfifo_free(&df);                                               \
		CHECK(!kfifo_initialized(&df));                                \
	}

TYPED_TEST(u8, uint8_t, mk_u8)
TYPED_TEST(u16, uint16_t, mk_u16)
TYPED_TEST(u32, uint32_t, mk_u32)
TYPED_TEST(u64, uint64_t, mk_u64)
TYPED_TEST(e12, elem12_t, mk_e12)
TYPED_TEST(sample, struct sample, mk_smp)

static void test_init_rounds_down_and_alloc_up_in_elements(void)
{
	DECLARE_KFIFO_PTR(f, elem12_t);
	DECLARE_KFIFO(own, int, 4);
	static unsigned char mem[12 * 40];
	int small[4];

	/* 40 elements of buffer: 32 usable, as mainline rounds down */
	CHECK_INT(kfifo_init(&f, mem, sizeof(mem)), 0);
	CHECK_UINT(kfifo_size(&f), 32);
	CHECK(kfifo_initialized(&f));
	/* one element of buffer is too little (at least 2) */
	CHECK_INT(kfifo_init(&f, mem, 12 + 11), -EINVAL);
	CHECK(!kfifo_initialized(&f));
	CHECK_INT(kfifo_alloc(&f, 1, GFP_KERNEL), -EINVAL);
	CHECK_INT(kfifo_alloc(&f, 33, GFP_KERNEL), 0);
	CHECK_UINT(kfifo_size(&f), 64);
	kfifo_free(&f);
	CHECK_INT(kfifo_alloc_node(&f, 3, GFP_KERNEL, 0), 0);
	CHECK_UINT(kfifo_size(&f), 4);
	kfifo_free(&f);
	kfifo_free(&f);
	CHECK_UINT(kfifo_size(&f), 0);
	CHECK_INT(kfifo_alloc(&f, 1u << 31, GFP_KERNEL), -EINVAL);
	/* a fifo with its own buffer takes none */
	INIT_KFIFO(own);
	CHECK_INT(kfifo_init(&own, small, sizeof(small)), -EINVAL);
	CHECK_UINT(kfifo_size(&own), 4);
}

/* The waits of the byte core count elements on an element fifo. */
static void test_waits_count_elements(void)
{
	DECLARE_KFIFO(f, elem12_t, 4);
	elem12_t e;

	INIT_KFIFO(f);
	mk_e12(&e, 1);
	kfifo_put(&f, e);
	kfifo_put(&f, e);
	CHECK_INT(kfifo_wait_len(&f.kfifo, 2, 0), 0);
	CHECK_INT(kfifo_wait_len(&f.kfifo, 3, 0), -ETIMEDOUT);
	CHECK_INT(kfifo_wait_avail(&f.kfifo, 2, 0), 0);
	CHECK_INT(kfifo_wait_avail(&f.kfifo, 3, 0), -ETIMEDOUT);
	CHECK_INT(kfifo_wait_len(&f.kfifo, 5, 0), -EINVAL);
}

static void test_records_through_the_typed_calls(void)
{
	STRUCT_KFIFO_REC_2(1024) r;
	static unsigned char big[70000];
	unsigned char out[400];
	unsigned int i, copied;

	kfifo_init_typed(r);
	CHECK_UINT(kfifo_recsize(&r), 2);
	CHECK_UINT(kfifo_esize(&r), 1);
	for (i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 13);
	CHECK_UINT(kfifo_in(&r, big, 300), 300);
	CHECK_UINT(kfifo_in(&r, big + 1, 0), 0);
	CHECK_UINT(kfifo_len(&r), 304);
	/* refused whole: too long for the fifo, then for the header */
	CHECK_UINT(kfifo_in(&r, big, 1000), 0);
	CHECK_UINT(kfifo_avail(&r), 1024 - 304 - 2);
	CHECK_UINT(kfifo_len(&r), 304);
	CHECK_UINT(kfifo_peek_len(&r), 300);
	CHECK_UINT(kfifo_out_peek(&r, out, 10), 10);
	CHECK_MEM(out, big, 10);
	CHECK_UINT(kfifo_len(&r), 304);
	CHECK_UINT(kfifo_out(&r, out, sizeof(out)), 300);
	CHECK_MEM(out, big, 300);
	CHECK_UINT(kfifo_peek_len(&r), 0);
	CHECK_UINT(kfifo_len(&r), 2);
	kfifo_skip(&r);
	CHECK(kfifo_is_empty(&r));
	/* one element by value is a one-byte record */
	CHECK_UINT(kfifo_put(&r, 0x5a), 1);
	CHECK_UINT(kfifo_len(&r), 3);
	CHECK_UINT(kfifo_get(&r, out), 1);
	CHECK_UINT(out[0], 0x5a);
	CHECK_INT(kfifo_from_user(&r, big, 20, &copied), 0);
	CHECK_UINT(copied, 20);
	CHECK_INT(kfifo_to_user(&r, out, 5, &copied), 0);
	CHECK_UINT(copied, 5); /* truncated: the rest of the record is gone */
	CHECK(kfifo_is_empty(&r));
}

static void test_plain_struct_kfifo_keeps_byte_counts(void)
{
	struct kfifo f;
	unsigned char c, buf[8];
	unsigned int copied;

	CHECK_INT(kfifo_alloc(&f, 5, GFP_KERNEL), 0);
	CHECK_UINT(kfifo_size(&f), 8);
	CHECK_UINT(kfifo_esize(&f), 1);
	CHECK_UINT(kfifo_recsize(&f), 0);
	CHECK_UINT(kfifo_in(&f, "abcdef", 6), 6);
	kfifo_skip(&f);            /* mainline: one byte */
	kfifo_skip(&f, 2);         /* v0.3: two bytes */
	CHECK_UINT(kfifo_out_peek(&f, buf, 8), 3);
	CHECK_MEM(buf, "def", 3);
	CHECK_UINT(kfifo_out_peek(&f, buf, 8, 1), 2);
	CHECK_MEM(buf, "ef", 2);
	CHECK_UINT(kfifo_put(&f, 'g'), 1);
	CHECK_UINT(kfifo_get(&f, &c), 1);
	CHECK_UINT(c, 'd');
	CHECK_INT(kfifo_to_user(&f, buf, 8, &copied), 0);
	CHECK_UINT(copied, 3);
	CHECK_MEM(buf, "efg", 3);
	kfifo_free(&f);
	/* kfifo_init of a plain fifo keeps v0.3's rule: a power of two,
	 * taken as it is, 1 included */
	CHECK_INT(kfifo_init(&f, buf, 6), -EINVAL);
	CHECK_INT(kfifo_init(&f, buf, 1), 0);
	CHECK_UINT(kfifo_size(&f), 1);
}

/* ---- one producer, one consumer, 12-byte elements ---- */

static DECLARE_KFIFO(spsc, elem12_t, 16);
/* elements to send; lowered by the producer when its time budget is spent
 * (atomic) */
static unsigned long long spsc_count;

static void *spsc_producer(void *arg)
{
	elem12_t batch[5];
	unsigned long long seq = 0;
	unsigned int i, n;

	(void)arg;
	while (seq < spsc_count) {
		if (kt_budget_spent()) {
			__atomic_store_n(&spsc_count, seq, __ATOMIC_RELAXED);
			break;
		}
		n = (unsigned int)(seq % 5) + 1;
		if (n > spsc_count - seq)
			n = (unsigned int)(spsc_count - seq);
		for (i = 0; i < n; i++)
			mk_e12(&batch[i], (unsigned int)(seq + i));
		n = kfifo_in(&spsc, batch, n);
		if (n == 0)
			sched_yield();
		seq += n;
	}
	return NULL;
}

static void test_one_producer_one_consumer_thread(void)
{
	pthread_t t;
	elem12_t got[7], want;
	unsigned long long seq = 0, bad = 0;
	unsigned int i, n;

	spsc_count = th_env_ull("KFIFO_TYPED_STRESS", 300000);
	INIT_KFIFO(spsc);
	spsc.kfifo.in = spsc.kfifo.out = UINT_MAX - 100;
	kt_budget_start();
	CHECK_INT(pthread_create(&t, NULL, spsc_producer, NULL), 0);
	while (seq < __atomic_load_n(&spsc_count, __ATOMIC_RELAXED)) {
		n = kfifo_out(&spsc, got, 7);
		if (n == 0)
			sched_yield();
		for (i = 0; i < n; i++) {
			mk_e12(&want, (unsigned int)(seq + i));
			bad += memcmp(&got[i], &want, sizeof(want)) != 0;
		}
		seq += n;
	}
	pthread_join(t, NULL);
	CHECK(seq > 0);
	CHECK_UINT(seq, spsc_count);
	CHECK_UINT(bad, 0);
	CHECK(kfifo_is_empty(&spsc));
}

int main(void)
{
	RUN_TEST(test_elements_u8);
	RUN_TEST(test_elements_u16);
	RUN_TEST(test_elements_u32);
	RUN_TEST(test_elements_u64);
	RUN_TEST(test_elements_e12);
	RUN_TEST(test_elements_sample);
	RUN_TEST(test_init_rounds_down_and_alloc_up_in_elements);
	RUN_TEST(test_waits_count_elements);
	RUN_TEST(test_records_through_the_typed_calls);
	RUN_TEST(test_plain_struct_kfifo_keeps_byte_counts);
	RUN_TEST(test_one_producer_one_consumer_thread);
	return th_finish("test_typed");
}
