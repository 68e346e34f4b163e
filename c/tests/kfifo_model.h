/* SPDX-License-Identifier: MIT */
/*
 * kfifo_model.h - an obviously-correct model of the kfifo contract
 * (docs/spec.md 1.3, 1.4, the zero-copy calls of 3.3, 3.1 without blocking,
 * plus the mainline 2.6.33-2.6.35 calls of the README's compatibility
 * table) and a differential executor that applies one
 * operation to a real struct kfifo and to the model and compares
 * everything: the return value, *total, every byte written to the
 * caller's buffer (and the bytes it must leave alone), the indices, the
 * content and kfifo_valid().
 *
 * Shared by the randomized differential test (test_random.c) and the
 * libFuzzer target (c/fuzz/fuzz_ops.c).  Written from docs/spec.md, not from
 * the library: the content is a plain array, oldest byte first, moved
 * with memmove; no masks, no wrapping buffer.  The model keeps the two
 * free-running counters only because they are visible in struct kfifo
 * (reset sets them to 0, the tests start them near UINT_MAX).
 */
#ifndef KFIFO_MODEL_H
#define KFIFO_MODEL_H

#include <kfifo.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest fifo the executor sets up: room for a 65535-byte record. */
#define KMODEL_MAX (1u << 17)
/* Slack past the fifo size in which the caller's buffer must stay intact. */
#define KMODEL_SLACK 64u

struct kmodel {
	unsigned int size;
	unsigned int in;  /* counters as struct kfifo shows them */
	unsigned int out;
	unsigned char *data; /* content, oldest byte first; in - out bytes */
	/* what the producer wrote into the regions of its last
	 * kfifo_in_prepare(), not yet published: the bytes that follow the
	 * content once kfifo_in_finish() publishes them */
	unsigned char *pending;
	unsigned int pending_len;
	int closed;          /* kfifo_close() ran */
};

static inline unsigned int kmodel_len(const struct kmodel *m)
{
	return m->in - m->out;
}

static inline unsigned int kmodel_avail(const struct kmodel *m)
{
	return m->size - kmodel_len(m);
}

static inline void kmodel_append(struct kmodel *m, const void *from,
				 unsigned int n)
{
	memcpy(m->data + kmodel_len(m), from, n);
	m->in += n;
}

static inline void kmodel_remove(struct kmodel *m, unsigned int n)
{
	memmove(m->data, m->data + n, kmodel_len(m) - n);
	m->out += n;
}

static inline unsigned int kmodel_min(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

static inline unsigned int kmodel_in(struct kmodel *m, const void *from,
				     unsigned int n)
{
	unsigned int k = kmodel_min(n, kmodel_avail(m));

	kmodel_append(m, from, k);
	return k;
}

static inline unsigned int kmodel_out(struct kmodel *m, void *to,
				      unsigned int n)
{
	unsigned int k = kmodel_min(n, kmodel_len(m));

	memcpy(to, m->data, k);
	kmodel_remove(m, k);
	return k;
}

static inline void kmodel_skip(struct kmodel *m, unsigned int n)
{
	kmodel_remove(m, kmodel_min(n, kmodel_len(m)));
}

static inline void kmodel_reset(struct kmodel *m)
{
	m->in = 0;
	m->out = 0;
	m->closed = 0;
}

static inline void kmodel_reset_out(struct kmodel *m)
{
	kmodel_remove(m, kmodel_len(m));
}

static inline unsigned int kmodel_refused(unsigned int n)
{
	return n == UINT_MAX ? UINT_MAX : n + 1;
}

static inline unsigned int kmodel_in_rec(struct kmodel *m, const void *from,
					 unsigned int n, unsigned int recsize)
{
	unsigned long long need = (unsigned long long)n + recsize;
	unsigned char hdr[2];

	if (recsize > 2)
		return kmodel_refused(n);
	if (recsize == 1 && n > 255)
		return kmodel_refused(n);
	if (recsize == 2 && n > 65535)
		return kmodel_refused(n);
	if (need > kmodel_avail(m))
		return kmodel_refused(n);
	hdr[0] = (unsigned char)(n & 0xff);
	hdr[1] = (unsigned char)((n >> 8) & 0xff);
	kmodel_append(m, hdr, recsize);
	kmodel_append(m, from, n);
	return 0;
}

/* The length in the next record's header; the caller checked it is there. */
static inline unsigned int kmodel_header(const struct kmodel *m,
					 unsigned int recsize)
{
	if (recsize == 1)
		return m->data[0];
	return m->data[0] | (unsigned int)m->data[1] << 8;
}

static inline unsigned int kmodel_out_rec(struct kmodel *m, void *to,
					  unsigned int n, unsigned int recsize,
					  unsigned int *total)
{
	unsigned int len = kmodel_len(m);
	unsigned int l;

	if (recsize > 2 || len < recsize) {
		if (total)
			*total = 0;
		return n;
	}
	l = recsize == 0 ? n : kmodel_header(m, recsize);
	if (total)
		*total = l;
	if (l > n)
		return l;
	if ((unsigned long long)recsize + l > len)
		return n;
	memcpy(to, m->data + recsize, l);
	kmodel_remove(m, recsize + l);
	return 0;
}

static inline unsigned int kmodel_peek_rec(const struct kmodel *m,
					   unsigned int recsize)
{
	if (recsize > 2)
		return 0;
	if (recsize == 0)
		return kmodel_len(m);
	if (kmodel_len(m) < recsize)
		return 0;
	return kmodel_header(m, recsize);
}

static inline void kmodel_skip_rec(struct kmodel *m, unsigned int recsize)
{
	unsigned int len = kmodel_len(m);
	unsigned int l;

	if (recsize > 2)
		return;
	if (recsize > 0 && len >= recsize) {
		l = kmodel_header(m, recsize);
		if ((unsigned long long)recsize + l <= len) {
			kmodel_remove(m, recsize + l);
			return;
		}
	}
	kmodel_reset_out(m);
}

/* ---- zero-copy (docs/spec.md 3.3) ------------------------------------ */

/* kfifo_in_prepare / kfifo_out_prepare: how many bytes the regions hold */
static inline unsigned int kmodel_in_prepare(const struct kmodel *m,
					     unsigned int n)
{
	return kmodel_min(n, kmodel_avail(m));
}

static inline unsigned int kmodel_out_prepare(const struct kmodel *m,
					      unsigned int n)
{
	return kmodel_min(n, kmodel_len(m));
}

/*
 * kfifo_in_finish: publishes min(n, avail) bytes.  The first of them are
 * what the producer wrote after its prepare (@m->pending); the contract says
 * nothing of the content of bytes published but never written, so the
 * caller passes what the buffer holds there (@unwritten, the bytes after
 * the pending ones).
 */
static inline unsigned int kmodel_in_finish(struct kmodel *m, unsigned int n,
					    const unsigned char *unwritten)
{
	unsigned int k = kmodel_min(n, kmodel_avail(m));
	unsigned int w = kmodel_min(k, m->pending_len);

	kmodel_append(m, m->pending, w);
	kmodel_append(m, unwritten, k - w);
	memmove(m->pending, m->pending + w, m->pending_len - w);
	m->pending_len -= w;
	return k;
}

static inline unsigned int kmodel_out_finish(struct kmodel *m, unsigned int n)
{
	unsigned int k = kmodel_min(n, kmodel_len(m));

	kmodel_remove(m, k);
	return k;
}

/* ---- mainline 2.6.33-2.6.35 calls --------------------------------------- */

/* kfifo_out_peek: at most n bytes from @offset on; nothing removed */
static inline unsigned int kmodel_out_peek(const struct kmodel *m, void *to,
					   unsigned int n, unsigned int offset)
{
	unsigned int len = kmodel_len(m), k;

	if (offset >= len)
		return 0;
	k = kmodel_min(n, len - offset);
	memcpy(to, m->data + offset, k);
	return k;
}

/* kfifo_avail_rec: the longest record kfifo_in_rec would store now */
static inline unsigned int kmodel_avail_rec(const struct kmodel *m,
					    unsigned int recsize)
{
	unsigned int avail = kmodel_avail(m);
	unsigned int max = recsize == 0 ? UINT_MAX : recsize == 1 ? 255 : 65535;

	if (recsize > 2 || avail <= recsize)
		return 0;
	return kmodel_min(avail - recsize, max);
}

/* ---- waiting (docs/spec.md 3.1): what a wait returns right now --------------
 * -EINVAL, then -EPIPE, then 0, then -ETIMEDOUT: the result of a wait
 * with timeout 0, and of any wait that does not block. */

static inline int kmodel_wait_avail(const struct kmodel *m, unsigned int n)
{
	if (n > m->size)
		return -EINVAL;
	if (m->closed)
		return -EPIPE;
	return kmodel_avail(m) >= n ? 0 : -ETIMEDOUT;
}

static inline int kmodel_wait_len(const struct kmodel *m, unsigned int n)
{
	if (n > m->size)
		return -EINVAL;
	if (kmodel_len(m) >= n)
		return 0;
	return m->closed ? -EPIPE : -ETIMEDOUT;
}

static inline int kmodel_wait_rec(const struct kmodel *m, unsigned int recsize)
{
	unsigned int len = kmodel_len(m);

	if (recsize != 1 && recsize != 2)
		return -EINVAL;
	if (len >= recsize && kmodel_header(m, recsize) <= len - recsize)
		return 0;
	return m->closed ? -EPIPE : -ETIMEDOUT;
}

/* ---- the differential executor --------------------------------------- */

enum kop_kind {
	KOP_IN,
	KOP_OUT,
	KOP_FROM_USER,
	KOP_TO_USER,
	KOP_IN_LOCKED,
	KOP_OUT_LOCKED,
	KOP_SKIP,
	KOP_RESET,
	KOP_RESET_OUT,
	KOP_IN_REC,
	KOP_OUT_REC,
	KOP_FROM_USER_REC,
	KOP_TO_USER_REC,
	KOP_PEEK_REC,
	KOP_SKIP_REC,
	KOP_IN_PREPARE,  /* prepare n, then fill the regions from the source */
	KOP_IN_FINISH,
	KOP_OUT_PREPARE, /* prepare n; the regions' bytes are the output */
	KOP_OUT_FINISH,
	KOP_OUT_PEEK,    /* n bytes at offset */
	KOP_AVAIL_REC,
	KOP_CLOSE,
	KOP_WAIT_AVAIL,
	KOP_WAIT_LEN,
	KOP_WAIT_REC,
	KOP_ALLOC,  /* free, then kfifo_alloc(n), then in = out = start */
	KOP_INIT,   /* free, then kfifo_init(caller buffer, n), in = out = start */
	KOP_FREE,
	KOP_COUNT
};

static const char *const kop_names[KOP_COUNT] = {
	"in", "out", "from_user", "to_user", "in_locked", "out_locked",
	"skip", "reset", "reset_out", "in_rec", "out_rec", "from_user_rec",
	"to_user_rec", "peek_rec", "skip_rec", "in_prepare", "in_finish",
	"out_prepare", "out_finish", "out_peek", "avail_rec", "close",
	"wait_avail", "wait_len", "wait_rec", "alloc", "init", "free"
};

/* op flags */
#define KOP_CONST_RECSIZE 1u /* call with a literal recsize when 0, 1, 2 */
#define KOP_TOTAL_NULL 2u    /* pass total = NULL */
#define KOP_NULL_BUFFER 4u   /* KOP_INIT: pass buffer = NULL */
#define KOP_COPIED 8u        /* KOP_FROM_USER / KOP_TO_USER: the mainline
				four-argument form */
#define KOP_WAIT_BLOCK 16u   /* KOP_WAIT_*: a timeout that allows blocking:
				unlimited when the model says the wait is
				decided, else 1 ns (it blocks and times out) */

struct kop {
	unsigned int kind;
	unsigned int n;       /* count, capacity, record length or size */
	unsigned int recsize;
	unsigned int flags;
	unsigned int start;   /* KOP_ALLOC / KOP_INIT: the starting index */
	unsigned int offset;  /* KOP_OUT_PEEK */
	unsigned char fill;   /* the sentinel pre-filled into output buffers */
	unsigned int seed;    /* KOP_IN*: where in the source pattern to start */
};

struct kdiff {
	struct kfifo fifo;
	struct kmodel model;
	kfifo_spinlock_t lock;
	unsigned char *src;     /* 2 * KMODEL_MAX pattern bytes */
	unsigned char *dst_f;   /* output of the fifo */
	unsigned char *dst_m;   /* output of the model */
	unsigned char *caller;  /* the kfifo_init buffer */
	unsigned long ops;
	char msg[512];
};

static inline int kdiff_open(struct kdiff *d)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->src = (unsigned char *)malloc(2 * KMODEL_MAX);
	d->dst_f = (unsigned char *)malloc(KMODEL_MAX + KMODEL_SLACK);
	d->dst_m = (unsigned char *)malloc(KMODEL_MAX + KMODEL_SLACK);
	d->caller = (unsigned char *)malloc(KMODEL_MAX);
	d->model.data = (unsigned char *)malloc(KMODEL_MAX);
	d->model.pending = (unsigned char *)malloc(KMODEL_MAX);
	if (!d->src || !d->dst_f || !d->dst_m || !d->caller || !d->model.data ||
	    !d->model.pending)
		return -1;
	for (i = 0; i < 2 * KMODEL_MAX; i++)
		d->src[i] = (unsigned char)((i * 131u + (i >> 8) * 7u) ^ (i >> 16));
	kfifo_spin_lock_init(&d->lock);
	d->model.size = 1;
	return kfifo_init(&d->fifo, d->caller, 1) == 0 ? 0 : -1;
}

static inline void kdiff_close(struct kdiff *d)
{
	kfifo_free(&d->fifo);
	free(d->src);
	free(d->dst_f);
	free(d->dst_m);
	free(d->caller);
	free(d->model.data);
	free(d->model.pending);
	memset(d, 0, sizeof(*d));
}

/* The bytes of the output buffers that are compared: all a call may write
 * (at most its capacity @n, at most the fifo size), plus the slack that it
 * must leave alone. */
static inline unsigned int kdiff_span(const struct kdiff *d, unsigned int n)
{
	return kmodel_min(n, d->model.size) + KMODEL_SLACK;
}

static inline unsigned int kdiff_in_rec(struct kdiff *d, const struct kop *op,
					const void *from, int from_user)
{
	struct kfifo *f = &d->fifo;

	if ((op->flags & KOP_CONST_RECSIZE) && from_user) {
		switch (op->recsize) {
		case 0: return kfifo_from_user_rec(f, from, op->n, 0);
		case 1: return kfifo_from_user_rec(f, from, op->n, 1);
		case 2: return kfifo_from_user_rec(f, from, op->n, 2);
		}
	} else if (op->flags & KOP_CONST_RECSIZE) {
		switch (op->recsize) {
		case 0: return kfifo_in_rec(f, from, op->n, 0);
		case 1: return kfifo_in_rec(f, from, op->n, 1);
		case 2: return kfifo_in_rec(f, from, op->n, 2);
		}
	}
	if (from_user)
		return kfifo_from_user_rec(f, from, op->n, op->recsize);
	return kfifo_in_rec(f, from, op->n, op->recsize);
}

static inline unsigned int kdiff_out_rec(struct kdiff *d, const struct kop *op,
					 unsigned int *total, int to_user)
{
	struct kfifo *f = &d->fifo;
	void *to = d->dst_f;

	if ((op->flags & KOP_CONST_RECSIZE) && to_user) {
		switch (op->recsize) {
		case 0: return kfifo_to_user_rec(f, to, op->n, 0, total);
		case 1: return kfifo_to_user_rec(f, to, op->n, 1, total);
		case 2: return kfifo_to_user_rec(f, to, op->n, 2, total);
		}
	} else if (op->flags & KOP_CONST_RECSIZE) {
		switch (op->recsize) {
		case 0: return kfifo_out_rec(f, to, op->n, 0, total);
		case 1: return kfifo_out_rec(f, to, op->n, 1, total);
		case 2: return kfifo_out_rec(f, to, op->n, 2, total);
		}
	}
	if (to_user)
		return kfifo_to_user_rec(f, to, op->n, op->recsize, total);
	return kfifo_out_rec(f, to, op->n, op->recsize, total);
}

static inline unsigned int kdiff_round_pow2(unsigned int n)
{
	unsigned long long r = 1;

	while (r < n)
		r *= 2;
	return (unsigned int)r;
}

/* Set both sides up; returns the two kfifo_alloc/kfifo_init results. */
static inline void kdiff_setup(struct kdiff *d, const struct kop *op,
			       long long *got, long long *want)
{
	struct kfifo *f = &d->fifo;
	struct kmodel *m = &d->model;
	unsigned int n = op->n;
	int pow2;

	/* Sizes the executor has no room for become KMODEL_MAX; sizes that
	 * must be refused (0, > 2^31, not a power of two) stay as they are. */
	if (n > KMODEL_MAX &&
	    (op->kind == KOP_ALLOC ? n <= (1u << 31) : (n & (n - 1)) == 0))
		n = KMODEL_MAX;
	pow2 = n != 0 && (n & (n - 1)) == 0;
	kfifo_free(f);
	if (op->kind == KOP_ALLOC) {
		/* the executor never asks for more than KMODEL_MAX */
		*got = kfifo_alloc(f, n, KFIFO_GFP_KERNEL);
		*want = (n == 0 || n > (1u << 31)) ? -EINVAL : 0;
		m->size = *want ? 0 : kdiff_round_pow2(n);
	} else {
		void *buf = (op->flags & KOP_NULL_BUFFER) ? NULL : d->caller;

		*got = kfifo_init(f, buf, n);
		*want = (buf == NULL || !pow2) ? -EINVAL : 0;
		m->size = *want ? 0 : n;
	}
	m->in = m->out = 0;
	m->closed = 0;
	if (*got == 0 && *want == 0) {
		f->in = f->out = op->start;
		m->in = m->out = op->start;
	}
}

/* The timeout of a wait: 0, or with KOP_WAIT_BLOCK one that lets it block
 * but still returns the model's answer @want (none blocks for long). */
static inline long long kdiff_timeout(const struct kop *op, int want)
{
	if (!(op->flags & KOP_WAIT_BLOCK))
		return 0;
	return want == -ETIMEDOUT ? 1 : -1;
}

#define KDIFF_FAIL(d, ...)                                                     \
	do {                                                                   \
		snprintf((d)->msg, sizeof((d)->msg), __VA_ARGS__);             \
		return (d)->msg;                                               \
	} while (0)

/* Compare the whole observable state; NULL when it agrees. */
static inline const char *kdiff_compare_state(struct kdiff *d)
{
	struct kfifo *f = &d->fifo;
	struct kmodel *m = &d->model;
	unsigned int len = kmodel_len(m);
	unsigned int i;

	if (kfifo_valid(f) != 1)
		KDIFF_FAIL(d, "kfifo_valid() is %d", kfifo_valid(f));
	/* every set-up the executor makes has a buffer exactly when size > 0 */
	if (kfifo_initialized(f) != (m->size != 0))
		KDIFF_FAIL(d, "kfifo_initialized() is %d with size %u",
			   kfifo_initialized(f), m->size);
	if (kfifo_is_closed(f) != m->closed)
		KDIFF_FAIL(d, "kfifo_is_closed() is %d, model %d",
			   kfifo_is_closed(f), m->closed);
	if (f->kfifo__data_waiters != 0 || f->kfifo__room_waiters != 0)
		KDIFF_FAIL(d, "a wait left itself counted: %u data, %u room",
			   f->kfifo__data_waiters, f->kfifo__room_waiters);
	if (f->size != m->size || f->in != m->in || f->out != m->out)
		KDIFF_FAIL(d, "size/in/out %u/%u/%u, model %u/%u/%u", f->size,
			   f->in, f->out, m->size, m->in, m->out);
	if (kfifo_size(f) != m->size || kfifo_len(f) != len ||
	    kfifo_avail(f) != m->size - len ||
	    kfifo_is_empty(f) != (len == 0) ||
	    kfifo_is_full(f) != (len == m->size))
		KDIFF_FAIL(d, "size queries %u %u %u %d %d, model %u %u %u %d %d",
			   kfifo_size(f), kfifo_len(f), kfifo_avail(f),
			   kfifo_is_empty(f), kfifo_is_full(f), m->size, len,
			   m->size - len, len == 0, len == m->size);
	if (len > 0) {
		/* the content in two pieces: up to the end of the buffer, and
		 * from its start (memcmp first, bytes only to report) */
		unsigned int off = f->out & (f->size - 1);
		unsigned int first = kmodel_min(len, f->size - off);

		if (memcmp(f->buffer + off, m->data, first) == 0 &&
		    memcmp(f->buffer, m->data + first, len - first) == 0)
			return NULL;
		for (i = 0; i < len; i++) {
			unsigned char b = f->buffer[(f->out + i) & (f->size - 1)];

			if (b != m->data[i])
				KDIFF_FAIL(d, "content byte %u of %u is 0x%02x, model 0x%02x",
					   i, len, b, m->data[i]);
		}
	}
	return NULL;
}

/*
 * The regions of a prepare that returned @total at index @idx: r[0] at the
 * index, r[1] at the start of the buffer holding what does not fit before
 * its end, both empty for a total of 0, never outside the buffer, their
 * data never NULL (so that memcpy of 0 bytes is defined).
 */
static inline const char *kdiff_check_regions(struct kdiff *d,
					      const struct kfifo_region *r,
					      unsigned int idx,
					      unsigned int total)
{
	struct kfifo *f = &d->fifo;
	unsigned int off, first;

	if (r[0].data == NULL || r[1].data == NULL)
		KDIFF_FAIL(d, "a region with data NULL (total %u)", total);
	if (total == 0) {
		if (r[0].len != 0 || r[1].len != 0)
			KDIFF_FAIL(d, "total 0 but regions of %u and %u bytes",
				   r[0].len, r[1].len);
		return NULL;
	}
	off = idx & (f->size - 1);
	first = kmodel_min(total, f->size - off);
	if (r[0].data != f->buffer + off || r[0].len != first ||
	    r[1].data != f->buffer || r[1].len != total - first)
		KDIFF_FAIL(d, "regions (+%td, %u) (+%td, %u), expected (+%u, %u) (+0, %u)",
			   r[0].data - f->buffer, r[0].len,
			   r[1].data - f->buffer, r[1].len, off, first,
			   total - first);
	return NULL;
}

/* The bytes of the two regions, in order, into @to. */
static inline void kdiff_gather(const struct kfifo_region *r, unsigned char *to)
{
	memcpy(to, r[0].data, r[0].len);
	memcpy(to + r[0].len, r[1].data, r[1].len);
}

/* Calls that may write into the free space: after them the bytes written
 * after the last kfifo_in_prepare() are no longer known to be there. */
static inline int kdiff_producer_may_write(unsigned int kind)
{
	switch (kind) {
	case KOP_IN:
	case KOP_FROM_USER:
	case KOP_IN_LOCKED:
	case KOP_RESET:
	case KOP_IN_REC:
	case KOP_FROM_USER_REC:
		return 1;
	}
	return 0;
}

/*
 * Apply @op to the fifo and to the model.  Returns NULL when everything
 * agrees, else a description of the first difference (in d->msg).
 */
static inline const char *kdiff_apply(struct kdiff *d, const struct kop *op)
{
	struct kfifo *f = &d->fifo;
	struct kmodel *m = &d->model;
	const unsigned char *from = d->src + (op->seed % KMODEL_MAX);
	unsigned int span = kdiff_span(d, op->n);
	unsigned long long got = 0, want = 0;
	unsigned int tf = 0xdeadbeefu, tm = 0xdeadbeefu;
	unsigned int *ptf = (op->flags & KOP_TOTAL_NULL) ? NULL : &tf;
	unsigned int *ptm = (op->flags & KOP_TOTAL_NULL) ? NULL : &tm;
	int outputs = 0, rc = 0;
	struct kfifo_region r[2];
	const char *rerr;

	d->ops++;
	if (kdiff_producer_may_write(op->kind) || op->kind >= KOP_ALLOC)
		m->pending_len = 0;
	if (op->kind >= KOP_ALLOC) {
		long long g = 0, w = 0;

		if (op->kind == KOP_FREE) {
			kfifo_free(f);
			m->size = m->in = m->out = 0;
			m->closed = 0;
		} else {
			kdiff_setup(d, op, &g, &w);
		}
		if (g != w)
			KDIFF_FAIL(d, "%s(%u) returned %lld, model %lld",
				   kop_names[op->kind], op->n, g, w);
		return kdiff_compare_state(d);
	}
	switch (op->kind) {
	case KOP_OUT:
	case KOP_TO_USER:
	case KOP_OUT_LOCKED:
	case KOP_OUT_REC:
	case KOP_TO_USER_REC:
	case KOP_OUT_PREPARE:
	case KOP_OUT_PEEK:
		memset(d->dst_f, op->fill, span);
		memset(d->dst_m, op->fill, span);
		break;
	}
	switch (op->kind) {
	case KOP_IN:
		got = kfifo_in(f, from, op->n);
		want = kmodel_in(m, from, op->n);
		break;
	case KOP_FROM_USER:
		if (op->flags & KOP_COPIED) {
			unsigned int copied = 0xdeadbeefu;

			rc = kfifo_from_user(f, from, op->n, &copied);
			got = copied;
		} else {
			got = kfifo_from_user(f, from, op->n);
		}
		want = kmodel_in(m, from, op->n);
		break;
	case KOP_IN_LOCKED:
		got = kfifo_in_locked(f, from, op->n, &d->lock);
		want = kmodel_in(m, from, op->n);
		break;
	case KOP_OUT:
		got = kfifo_out(f, d->dst_f, op->n);
		want = kmodel_out(m, d->dst_m, op->n);
		outputs = 1;
		break;
	case KOP_TO_USER:
		if (op->flags & KOP_COPIED) {
			unsigned int copied = 0xdeadbeefu;

			rc = kfifo_to_user(f, d->dst_f, op->n, &copied);
			got = copied;
		} else {
			got = kfifo_to_user(f, d->dst_f, op->n);
		}
		want = kmodel_out(m, d->dst_m, op->n);
		outputs = 1;
		break;
	case KOP_OUT_LOCKED:
		got = kfifo_out_locked(f, d->dst_f, op->n, &d->lock);
		want = kmodel_out(m, d->dst_m, op->n);
		outputs = 1;
		break;
	case KOP_SKIP:
		kfifo_skip(f, op->n);
		kmodel_skip(m, op->n);
		break;
	case KOP_RESET:
		kfifo_reset(f);
		kmodel_reset(m);
		break;
	case KOP_RESET_OUT:
		kfifo_reset_out(f);
		kmodel_reset_out(m);
		break;
	case KOP_IN_REC:
	case KOP_FROM_USER_REC:
		got = kdiff_in_rec(d, op, from, op->kind == KOP_FROM_USER_REC);
		want = kmodel_in_rec(m, from, op->n, op->recsize);
		break;
	case KOP_OUT_REC:
	case KOP_TO_USER_REC:
		got = kdiff_out_rec(d, op, ptf, op->kind == KOP_TO_USER_REC);
		want = kmodel_out_rec(m, d->dst_m, op->n, op->recsize, ptm);
		outputs = 1;
		if (tf != tm)
			KDIFF_FAIL(d, "%s(n=%u, recsize=%u): *total %u, model %u",
				   kop_names[op->kind], op->n, op->recsize, tf, tm);
		break;
	case KOP_PEEK_REC:
		got = kfifo_peek_rec(f, op->recsize);
		want = kmodel_peek_rec(m, op->recsize);
		break;
	case KOP_SKIP_REC:
		kfifo_skip_rec(f, op->recsize);
		kmodel_skip_rec(m, op->recsize);
		break;
	case KOP_IN_PREPARE:
		got = kfifo_in_prepare(f, r, op->n);
		want = kmodel_in_prepare(m, op->n);
		rerr = kdiff_check_regions(d, r, m->in, (unsigned int)got);
		if (rerr)
			return rerr;
		if (got == want) {
			/* the producer writes its data in place */
			memcpy(r[0].data, from, r[0].len);
			memcpy(r[1].data, from + r[0].len, r[1].len);
			memcpy(m->pending, from, (size_t)want);
			m->pending_len = (unsigned int)want;
		}
		break;
	case KOP_IN_FINISH: {
		unsigned int k = kmodel_min(op->n, kmodel_avail(m)), i;

		/* bytes published but never written after a prepare: the
		 * model adopts what the buffer holds there */
		for (i = kmodel_min(k, m->pending_len); i < k; i++)
			d->dst_m[i] = f->buffer[(m->in + i) & (f->size - 1)];
		got = kfifo_in_finish(f, op->n);
		want = kmodel_in_finish(m, op->n,
					d->dst_m + kmodel_min(k, m->pending_len));
		break;
	}
	case KOP_OUT_PREPARE:
		got = kfifo_out_prepare(f, r, op->n);
		want = kmodel_out_prepare(m, op->n);
		rerr = kdiff_check_regions(d, r, m->out, (unsigned int)got);
		if (rerr)
			return rerr;
		if (got == want) {
			kdiff_gather(r, d->dst_f);
			memcpy(d->dst_m, m->data, (size_t)want);
		}
		outputs = 1;
		break;
	case KOP_OUT_FINISH:
		got = kfifo_out_finish(f, op->n);
		want = kmodel_out_finish(m, op->n);
		break;
	case KOP_OUT_PEEK:
		got = kfifo_out_peek(f, d->dst_f, op->n, op->offset);
		want = kmodel_out_peek(m, d->dst_m, op->n, op->offset);
		outputs = 1;
		break;
	case KOP_AVAIL_REC:
		got = kfifo_avail_rec(f, op->recsize);
		want = kmodel_avail_rec(m, op->recsize);
		break;
	case KOP_CLOSE:
		kfifo_close(f);
		m->closed = 1;
		break;
	case KOP_WAIT_AVAIL:
		want = (unsigned long long)kmodel_wait_avail(m, op->n);
		got = (unsigned long long)kfifo_wait_avail(
			f, op->n, kdiff_timeout(op, (int)want));
		break;
	case KOP_WAIT_LEN:
		want = (unsigned long long)kmodel_wait_len(m, op->n);
		got = (unsigned long long)kfifo_wait_len(
			f, op->n, kdiff_timeout(op, (int)want));
		break;
	case KOP_WAIT_REC:
		want = (unsigned long long)kmodel_wait_rec(m, op->recsize);
		got = (unsigned long long)kfifo_wait_rec(
			f, op->recsize, kdiff_timeout(op, (int)want));
		break;
	default:
		KDIFF_FAIL(d, "bad op kind %u", op->kind);
	}
	if (got != want)
		KDIFF_FAIL(d, "%s(n=%u, recsize=%u) returned %lld, model %lld",
			   kop_names[op->kind], op->n, op->recsize,
			   (long long)got, (long long)want);
	if (rc != 0)
		KDIFF_FAIL(d, "%s(n=%u) in the four-argument form returned %d",
			   kop_names[op->kind], op->n, rc);
	if (outputs && memcmp(d->dst_f, d->dst_m, span) != 0) {
		unsigned int i = 0;

		while (d->dst_f[i] == d->dst_m[i])
			i++;
		KDIFF_FAIL(d, "%s(n=%u, recsize=%u): output byte %u is 0x%02x, model 0x%02x",
			   kop_names[op->kind], op->n, op->recsize, i,
			   d->dst_f[i], d->dst_m[i]);
	}
	return kdiff_compare_state(d);
}

static inline void kdiff_describe(const struct kop *op, char *buf, size_t len)
{
	snprintf(buf, len, "%s n=%u recsize=%u flags=%u start=%u offset=%u",
		 op->kind < KOP_COUNT ? kop_names[op->kind] : "?", op->n,
		 op->recsize, op->flags, op->start, op->offset);
}

#endif /* KFIFO_MODEL_H */
