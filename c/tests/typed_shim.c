/* SPDX-License-Identifier: MIT */
/*
 * typed_shim.c - the typed API behind plain functions, for ctypes:
 * tests/test_typed_api.py builds it with the library's sources into a
 * shared library and drives it against kfifo.model.ElementKfifoModel.
 * Every function calls the typed macro of the same name on a
 * DECLARE_KFIFO_PTR fifo of the element size chosen at shim_new() (1, 2,
 * 4, 8 or 12 bytes), so the macros' dispatch, the element counting and
 * the element copies are what is tested.
 */
#define KFIFO_TYPED_API
#include <kfifo.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	uint32_t w[3];
} shim_e12;

struct shim {
	unsigned int esize;
	DECLARE_KFIFO_PTR(f1, uint8_t);
	DECLARE_KFIFO_PTR(f2, uint16_t);
	DECLARE_KFIFO_PTR(f4, uint32_t);
	DECLARE_KFIFO_PTR(f8, uint64_t);
	DECLARE_KFIFO_PTR(f12, shim_e12);
	struct kfifo_rec_ptr_1 r1;
	struct kfifo_rec_ptr_2 r2;
};

/* Run @stmt with `f` the fifo of @s's element size. */
#define ON_FIFO(s, stmt)                                                       \
	do {                                                                   \
		switch ((s)->esize) {                                          \
		case 1: { __typeof__(&(s)->f1) f = &(s)->f1; stmt; } break;    \
		case 2: { __typeof__(&(s)->f2) f = &(s)->f2; stmt; } break;    \
		case 4: { __typeof__(&(s)->f4) f = &(s)->f4; stmt; } break;    \
		case 8: { __typeof__(&(s)->f8) f = &(s)->f8; stmt; } break;    \
		case 101: { __typeof__(&(s)->r1) f = &(s)->r1; stmt; } break;  \
		case 102: { __typeof__(&(s)->r2) f = &(s)->r2; stmt; } break;  \
		default: { __typeof__(&(s)->f12) f = &(s)->f12; stmt; }        \
		}                                                              \
	} while (0)

struct shim *shim_new(unsigned int esize, unsigned int n, unsigned int start);
void shim_free(struct shim *s);
unsigned int shim_in(struct shim *s, const void *buf, unsigned int n);
unsigned int shim_out(struct shim *s, void *buf, unsigned int n);
unsigned int shim_out_peek(struct shim *s, void *buf, unsigned int n);
unsigned int shim_put(struct shim *s, const void *elem);
unsigned int shim_get(struct shim *s, void *elem);
unsigned int shim_peek(struct shim *s, void *elem);
void shim_skip(struct shim *s);
void shim_skip_count(struct shim *s, unsigned int n);
unsigned int shim_len(struct shim *s);
unsigned int shim_avail(struct shim *s);
unsigned int shim_size(struct shim *s);
unsigned int shim_esize(struct shim *s);
int shim_is_empty(struct shim *s);
int shim_is_full(struct shim *s);
unsigned int shim_peek_len(struct shim *s);
void shim_reset(struct shim *s);
void shim_reset_out(struct shim *s);
unsigned int shim_out_linear(struct shim *s, unsigned int *tail,
			     unsigned int n);
unsigned int shim_to_user(struct shim *s, void *buf, unsigned int bytes);
unsigned int shim_from_user(struct shim *s, const void *buf,
			    unsigned int bytes);
int shim_valid(struct shim *s);

struct shim *shim_new(unsigned int esize, unsigned int n, unsigned int start)
{
	struct shim *s = calloc(1, sizeof(*s));
	int ret = -EINVAL;

	if (s == NULL)
		return NULL;
	s->esize = esize;
	if (esize == 1 || esize == 2 || esize == 4 || esize == 8 ||
	    esize == 12 || esize == 101 || esize == 102)
		ON_FIFO(s, ret = kfifo_alloc(f, n, GFP_KERNEL);
			f->kfifo.in = f->kfifo.out = start);
	if (ret) {
		free(s);
		return NULL;
	}
	return s;
}

void shim_free(struct shim *s)
{
	ON_FIFO(s, kfifo_free(f));
	free(s);
}

unsigned int shim_in(struct shim *s, const void *buf, unsigned int n)
{
	unsigned int r = 0;

	ON_FIFO(s, r = kfifo_in(f, (const void *)buf, n));
	return r;
}

unsigned int shim_out(struct shim *s, void *buf, unsigned int n)
{
	unsigned int r = 0;

	ON_FIFO(s, r = kfifo_out(f, buf, n));
	return r;
}

unsigned int shim_out_peek(struct shim *s, void *buf, unsigned int n)
{
	unsigned int r = 0;

	ON_FIFO(s, r = kfifo_out_peek(f, buf, n));
	return r;
}

unsigned int shim_put(struct shim *s, const void *elem)
{
	unsigned int r = 0;

	ON_FIFO(s, kfifo__typeof_elem(f) v; memcpy(&v, elem, sizeof(v));
		r = kfifo_put(f, v));
	return r;
}

unsigned int shim_get(struct shim *s, void *elem)
{
	unsigned int r = 0;

	ON_FIFO(s, kfifo__typeof_elem(f) v; r = kfifo_get(f, &v);
		if (r) memcpy(elem, &v, sizeof(v)));
	return r;
}

unsigned int shim_peek(struct shim *s, void *elem)
{
	unsigned int r = 0;

	ON_FIFO(s, kfifo__typeof_elem(f) v; r = kfifo_peek(f, &v);
		if (r) memcpy(elem, &v, sizeof(v)));
	return r;
}

void shim_skip(struct shim *s)
{
	ON_FIFO(s, kfifo_skip(f));
}

void shim_skip_count(struct shim *s, unsigned int n)
{
	ON_FIFO(s, kfifo_skip_count(f, n));
}

unsigned int shim_len(struct shim *s)
{
	unsigned int r = 0;

	ON_FIFO(s, r = kfifo_len(f));
	return r;
}

unsigned int shim_avail(struct shim *s)
{
	unsigned int r = 0;

	ON_FIFO(s, r = kfifo_avail(f));
	return r;
}

unsigned int shim_size(struct shim *s)
{
	unsigned int r = 0;

	ON_FIFO(s, r = kfifo_size(f));
	return r;
}

unsigned int shim_esize(struct shim *s)
{
	unsigned int r = 0;

	ON_FIFO(s, r = kfifo_esize(f));
	return r;
}

int shim_is_empty(struct shim *s)
{
	int r = 0;

	ON_FIFO(s, r = kfifo_is_empty(f));
	return r;
}

int shim_is_full(struct shim *s)
{
	int r = 0;

	ON_FIFO(s, r = kfifo_is_full(f));
	return r;
}

unsigned int shim_peek_len(struct shim *s)
{
	unsigned int r = 0;

	ON_FIFO(s, r = kfifo_peek_len(f));
	return r;
}

void shim_reset(struct shim *s)
{
	ON_FIFO(s, kfifo_reset(f));
}

void shim_reset_out(struct shim *s)
{
	ON_FIFO(s, kfifo_reset_out(f));
}

unsigned int shim_out_linear(struct shim *s, unsigned int *tail,
			     unsigned int n)
{
	unsigned int r = 0;

	ON_FIFO(s, r = kfifo_out_linear(f, tail, n));
	return r;
}

unsigned int shim_to_user(struct shim *s, void *buf, unsigned int bytes)
{
	unsigned int copied = 0;
	int r = 0;

	ON_FIFO(s, r = kfifo_to_user(f, buf, bytes, &copied));
	return r == 0 ? copied : 0xffffffffu;
}

unsigned int shim_from_user(struct shim *s, const void *buf,
			    unsigned int bytes)
{
	unsigned int copied = 0;
	int r = 0;

	ON_FIFO(s, r = kfifo_from_user(f, buf, bytes, &copied));
	return r == 0 ? copied : 0xffffffffu;
}

int shim_valid(struct shim *s)
{
	int r = 0;

	ON_FIFO(s, r = kfifo_valid(&f->kfifo));
	return r;
}
