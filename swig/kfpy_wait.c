/* SPDX-License-Identifier: MIT */
/*
 * kfpy_wait.c - waiting: the blocking calls (put, get, ...), the waits
 * and end of stream, in slices the signal handlers can interrupt (PEP 475).
 */
#include "kfpy_internal.h"

#include <math.h>
#include <sched.h>
#include <time.h>

/* ---- waiting ------------------------------------------------------------------------------- */

/* A wait sleeps at most this long at a time: a signal that arrives just
 * before the kernel sleep begins does not end it (kfifo.h), so Ctrl-C is
 * seen within one slice however long the timeout. */
#define KF_WAIT_SLICE_NS 100000000LL


static long long kf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* timeout in seconds (None: no limit) -> a deadline in kf_now_ns() time,
 * or -1 for none.  It counts from the call: wake-ups do not restart it. */
static int kf_deadline_slow(PyObject *timeout, const char *method,
			    long long *deadline)
{
	double t;

	*deadline = -1;
	/* a bool is an int, but here it is most likely queue.Queue's block
	 * argument: get(n, False) would not wait and put(data, True) would
	 * wait one second, neither what was meant */
	if (PyBool_Check(timeout)) {
		PyErr_Format(PyExc_TypeError,
			     "Kfifo.%s(): timeout must be a number of seconds or "
			     "None, not bool (queue.Queue's block argument has no "
			     "equivalent here: use timeout=0 to not wait)", method);
		return -1;
	}
	if (!PyFloat_Check(timeout) && !PyLong_Check(timeout) &&
	    !PyIndex_Check(timeout)) {
		PyErr_Format(PyExc_TypeError,
			     "Kfifo.%s(): timeout must be a number of seconds or "
			     "None, not %.100s", method, Py_TYPE(timeout)->tp_name);
		return -1;
	}
	if (PyFloat_Check(timeout)) {
		t = PyFloat_AS_DOUBLE(timeout);
		if (isnan(t)) {
			PyErr_Format(PyExc_ValueError,
				     "Kfifo.%s(): timeout must be a number of "
				     "seconds, not nan", method);
			return -1;
		}
	} else {
		/* an integer of any size: its sign first, then its value
		 * (one too big for a double is no limit at all) */
		PyObject *i = PyNumber_Index(timeout), *zero;
		int neg = -1;

		if (i == NULL)
			return -1;
		zero = PyLong_FromLong(0);
		if (zero != NULL)
			neg = PyObject_RichCompareBool(i, zero, Py_LT);
		Py_XDECREF(zero);
		if (neg < 0) {
			Py_DECREF(i);
			return -1;
		}
		t = neg ? -1.0 : PyLong_AsDouble(i);
		Py_DECREF(i);
		if (t == -1.0 && PyErr_Occurred()) {
			if (!PyErr_ExceptionMatches(PyExc_OverflowError))
				return -1;
			PyErr_Clear();
			t = HUGE_VAL;
		}
	}
	if (t < 0.0) {
		PyErr_Format(PyExc_ValueError,
			     "Kfifo.%s(): timeout must not be negative, got %R",
			     method, timeout);
		return -1;
	}
	if (t < 1e9)	/* beyond 30 years: no limit */
		*deadline = kf_now_ns() + (long long)(t * 1e9);
	return 0;
}

/* no limit (None), the common case, inline */
static inline int kf_deadline(PyObject *timeout, const char *method,
			      long long *deadline)
{
	if (timeout == Py_None) {
		*deadline = -1;
		return 0;
	}
	return kf_deadline_slow(timeout, method, deadline);
}

/*
 * KF_TAKE_LEN: a wait for @arg bytes that the caller follows with a take
 * at once.  On a fifo of many consumers, a wait for KF_TAKE_MIN bytes or
 * more is exclusive (kfifo__wait_take(), "Exclusive waiters" in
 * c/src/kfifo_wake.h): a publication wakes one sleeping consumer, not
 * all.  Measured with 64 KiB chunks on 2 cores (bench_pools' kfifo runs,
 * alternating with the library that woke all): 1 producer and 10
 * consumer processes 2.0-2.9x the rate, 3 and 20 2.0-6.7x, four pairs
 * each.  Smaller waits stay ordinary: an
 * exclusive sleeper costs the producer a FUTEX_WAKE on every publication,
 * and with 16-byte records that system call per record held pools of 10
 * and 20 consumers at 1-2 M records/s, where waking all (whose woken
 * consumers then take records in batches while the producer publishes
 * without system calls) ran at 3-13 M.
 */
#define KF_TAKE_MIN 4096u
enum kf_wait_kind { KF_WAIT_AVAIL, KF_WAIT_LEN, KF_WAIT_REC, KF_TAKE_LEN };

/*
 * Wait, without the GIL, for kfifo_wait_<kind>(@arg) until @deadline.
 * Returns 0 with the C result (0, -EPIPE, -ETIMEDOUT, -EINVAL) in *@res,
 * or -1 with an exception: the fifo was freed meanwhile, or a signal
 * handler raised (KeyboardInterrupt).  The waiter is counted in st->waiters, under the
 * GIL, so that free() can wake it and let it leave before the memory goes.
 */
static int kf_wait_now(struct kfifo *f, enum kf_wait_kind kind,
		       unsigned int arg, long long timeout_ns)
{
	switch (kind) {
	case KF_WAIT_AVAIL:
		return kfifo_wait_avail(f, arg, timeout_ns);
	case KF_WAIT_LEN:
		return kfifo_wait_len(f, arg, timeout_ns);
	case KF_WAIT_REC:
		return kfifo_wait_rec(f, arg, timeout_ns);
	default:
		return arg >= KF_TAKE_MIN
			       ? kfifo__wait_take(f, arg, 0, timeout_ns)
			       : kfifo_wait_len(f, arg, timeout_ns);
	}
}

/*
 * The first part of a blocking wait: yield the CPU and check again, for at
 * most @limit ns (GIL released).  The core's wait (kf_wait_now) spins for
 * tens of microseconds, then counts itself as a waiter and sleeps on its
 * futex; from then on every publish of the other side pays the wake path
 * (a locked read-modify-write of the futex word and a look at the
 * notifiers), not only the first one, until the woken thread has run and
 * counted itself out.  Between two Python threads that is most of the
 * time: the side that runs out hands the GIL over, the other side's
 * thread needs tens to hundreds of microseconds to be scheduled and to
 * take it (more on a busy machine), so the waiter's spin ends first, it
 * sleeps, and the other side's first publish wakes a thread that again
 * takes that long to be scheduled.  Measured (bench_threads' 16-byte
 * records, CPython 3.11, 2 vCPUs, load ~2): ~3,500 publishes paid the wake
 * path per sleep, kfifo__wake ~8 % of the samples of the whole run.
 * Yielding instead (sched_yield(), which gives the CPU to any other
 * runnable thread, the other side's included, and returns at once when
 * there is none) covers that hand-over without counting itself as a
 * waiter: the other side publishes for free, and this thread takes the
 * GIL back when it comes.  A wait that lasts longer sleeps as before.
 * Returns the C result of the last check (-ETIMEDOUT: still waiting) and
 * the time spent in *@spent.
 *
 * Yielding costs CPU where the wait would have slept: a stream whose
 * records come a millisecond apart would spend up to 0.2 ms a record
 * yielding.  So the limit is learned per fifo and direction
 * (kf_wait_learn): a wait that ended within KF_WAIT_YIELD_NS, however it
 * ended (yielding or asleep), sets it back to KF_WAIT_YIELD_NS; each one
 * that lasted longer halves it, down to KF_WAIT_YIELD_NS >>
 * KF_WAIT_YIELD_MAX_SHIFT (12.5 us, less than the core's spin).
 * Measured (a records() consumer, one record every 0.3 ms, CPU time of
 * the consumer's thread per record): 13 us before yielding, 204 us with
 * 0.2 ms each time, 27 us learned; two threads streaming, the limit stays
 * at 0.2 ms (the hand-overs end within it).
 */
#define KF_WAIT_YIELD_NS 200000LL
#define KF_WAIT_YIELD_MAX_SHIFT 4

/* Learn from a wait of @waited ns (GIL held, st alive). */
static void kf_wait_learn(kf_state *st, enum kf_wait_kind kind,
			  long long waited)
{
	unsigned char *shift = &st->yield_shift[kind != KF_WAIT_AVAIL];

	if (waited <= KF_WAIT_YIELD_NS)
		*shift = 0;
	else if (*shift < KF_WAIT_YIELD_MAX_SHIFT)
		(*shift)++;
}

static int kf_wait_yielding(struct kfifo *f, enum kf_wait_kind kind,
			    unsigned int arg, long long limit, long long *spent)
{
	long long start = kf_now_ns(), now = start;
	int r = -ETIMEDOUT;

	while (now - start < limit) {
		sched_yield();
		r = kf_wait_now(f, kind, arg, 0);
		now = kf_now_ns();
		if (r != -ETIMEDOUT)
			break;
	}
	*spent = now - start;
	return r;
}

static int kf_wait(kfpy_kfifo *k, const char *method, enum kf_wait_kind kind,
		   unsigned int arg, long long deadline, int *res)
{
	long long yield, start;
	int r;

	/* kept: the callers convert the timeout (its __float__) first; and
	 * in the loop below, each time the GIL comes back */
	if (k->freed) {
		kf_freed_error(method);
		return -1;
	}
	/*
	 * First a check that cannot block (timeout 0: no system call), with
	 * the GIL held: when the condition already holds, releasing the GIL
	 * would only hand it to the other side and wait to get it back.
	 */
	r = kf_wait_now(&k->st->fifo, kind, arg, 0);
	if (r != -ETIMEDOUT || (deadline >= 0 && deadline <= kf_now_ns())) {
		*res = r;
		return 0;
	}
	start = kf_now_ns();
	yield = KF_WAIT_YIELD_NS >> k->st->yield_shift[kind != KF_WAIT_AVAIL];
	for (;;) {
		long long left = -1, slice;
		struct kfifo *f;
		PyThreadState *ts;

		if (k->freed) {
			kf_freed_error(method);
			return -1;
		}
		if (deadline >= 0) {
			left = deadline - kf_now_ns();
			if (left < 0)
				left = 0;
		}
		slice = left < 0 || left > KF_WAIT_SLICE_NS ? KF_WAIT_SLICE_NS : left;
		f = &k->st->fifo;
		k->st->waiters++;
		ts = kf_gil_release();
		r = -ETIMEDOUT;
		if (yield > 0) {
			/* once per call, within the slice (see above) */
			long long spent = 0;

			r = kf_wait_yielding(f, kind, arg,
					     yield < slice ? yield : slice, &spent);
			yield = 0;
			slice = spent < slice ? slice - spent : 0;
			left = left < 0 ? -1 : left > spent ? left - spent : 0;
		}
		if (r == -ETIMEDOUT && slice > 0)
			r = kf_wait_now(f, kind, arg, slice);
		kf_gil_take(ts);
		k->st->waiters--;
		if (k->freed) {
			kf_freed_error(method);
			return -1;
		}
		if (r == -EINTR || (r == -ETIMEDOUT && slice != left)) {
			/* PEP 475: run the handlers, then retry with the time left */
			if (PyErr_CheckSignals() < 0)
				return -1;
			continue;
		}
		kf_wait_learn(k->st, kind, kf_now_ns() - start);
		*res = r;
		return 0;
	}
}

/*
 * Raise @type with @msg (a new reference, stolen) and the count of bytes
 * this call stored as the exception's attribute ``stored``: a put that
 * times out or finds the fifo closed keeps what it stored, and the caller
 * needs the number, not only the message text.
 */
static PyObject *kf_put_error(PyObject *type, PyObject *msg, Py_ssize_t done)
{
	PyObject *exc, *count;

	if (msg == NULL)
		return NULL;
	exc = PyObject_CallFunctionObjArgs(type, msg, NULL);
	Py_DECREF(msg);
	if (exc == NULL)
		return NULL;
	count = PyLong_FromSsize_t(done);
	if (count == NULL || PyObject_SetAttrString(exc, "stored", count) < 0) {
		Py_XDECREF(count);
		Py_DECREF(exc);
		return NULL;
	}
	Py_DECREF(count);
	PyErr_SetObject(type, exc);
	Py_DECREF(exc);
	return NULL;
}

static PyObject *kf_closed_error(const char *method, Py_ssize_t done,
				 Py_ssize_t n)
{
	return kf_put_error(PyExc_BrokenPipeError,
			    PyUnicode_FromFormat("Kfifo.%s(): the fifo is closed "
						 "(%zd of %zd bytes stored by "
						 "this call)", method, done, n),
			    done);
}

static PyObject *kf_timeout_error(const char *method)
{
	PyErr_Format(kfpy_Empty, "Kfifo.%s(): timed out", method);
	return NULL;
}

static int kf_check_size(kfpy_kfifo *k, const char *method, unsigned int n)
{
	unsigned int size;

	if (k->freed) {
		kf_freed_error(method);
		return -1;
	}
	size = kfifo_size(&k->st->fifo);
	if (n > size) {
		PyErr_Format(PyExc_ValueError,
			     "Kfifo.%s(): n=%u is more than the fifo's size %u "
			     "(it could never be met)", method, n, size);
		return -1;
	}
	return 0;
}

/*
 * Store all @n bytes at @p, waiting for room until @deadline; *@done
 * counts the bytes stored (it goes on from its value).  0 when all are
 * stored, -EPIPE when the fifo is closed, -ETIMEDOUT, or -1 with an
 * exception.  It offers the C core at most 2**32 - 1 bytes at a time.
 */
static int kf_put_span(kfpy_kfifo *k, const char *method,
		       const unsigned char *p, Py_ssize_t n, long long deadline,
		       Py_ssize_t *done)
{
	Py_ssize_t sent = 0;
	unsigned int r;
	int w;

	for (;;) {
		if (k->freed) {
			kf_freed_error(method);
			return -1;
		}
		if (kfifo_is_closed(&k->st->fifo))
			return -EPIPE;
		if (kf_in_call(k, KF_IN, method, p + sent, kf_clamp(n - sent),
			       0, NULL, &r) < 0)
			return -1;
		sent += (Py_ssize_t)r;
		*done += (Py_ssize_t)r;
		if (sent == n)
			return 0;
		/* one free byte is enough to go on: waiting for more could
		 * deadlock with a consumer that waits for more data first */
		if (kf_wait(k, method, KF_WAIT_AVAIL, 1, deadline, &w) < 0)
			return -1;
		if (w != 0)
			return w == -EPIPE ? -EPIPE : -ETIMEDOUT;
	}
}

/*
 * put() takes a buffer of any length (a Py_ssize_t, never clamped), and
 * goes on until all are stored, the time runs out or the stream ends.
 */
PyObject *kfpy_put(kfpy_kfifo *k, const char *method, const void *from,
		   Py_ssize_t n, PyObject *timeout)
{
	Py_ssize_t done = 0;
	long long deadline;
	int r;

	if (kf_deadline(timeout, method, &deadline) < 0)
		return NULL;
	r = kf_put_span(k, method, from, n, deadline, &done);
	if (r == 0)
		Py_RETURN_NONE;
	if (r == -EPIPE)
		return kf_closed_error(method, done, n);
	if (r == -ETIMEDOUT)
		return kf_put_error(kfpy_Full,
				    PyUnicode_FromFormat("Kfifo.%s(): timed out with "
							 "%zd of %zd bytes stored "
							 "by this call", method,
							 done, n),
				    done);
	return NULL;
}

/*
 * get(n) and get_into(buffer): wait for one stored byte, then take up to @n
 * of them, as a new bytes (@to NULL) or into @to; nothing at end of stream
 * (closed and empty), and at once for n = 0.  An empty take means another
 * consumer thread was first: wait again.
 */
static PyObject *kf_get_common(kfpy_kfifo *k, const char *method, void *to,
			       unsigned int n, PyObject *timeout)
{
	long long deadline;
	unsigned int r = 0;
	PyObject *res;
	int w;

	if (kf_deadline(timeout, method, &deadline) < 0)
		return NULL;
	if (k->freed)
		return kf_freed_error(method);
	while (n > 0) {
		if (kf_wait(k, method, KF_TAKE_LEN, 1, deadline, &w) < 0)
			return NULL;
		if (w == -EPIPE)
			break;
		if (w != 0)
			return kf_timeout_error(method);
		if (to != NULL) {
			if (kf_out_into_call(k, method, to, n, &r) < 0)
				return NULL;
			if (r > 0)
				break;
			continue;
		}
		res = kf_out_common(k, KF_OUT, method, n, NULL);
		if (res == NULL || PyBytes_GET_SIZE(res) > 0)
			return res;
		Py_DECREF(res);
	}
	return to ? PyLong_FromUnsignedLong(r) : PyBytes_FromStringAndSize(NULL, 0);
}

PyObject *kfpy_get(kfpy_kfifo *k, const char *method, unsigned int n,
		   PyObject *timeout)
{
	return kf_get_common(k, method, NULL, n, timeout);
}

/* ---- whole buffers and frames -------------------------------------------------------- */

/* @type with @msg (stolen) and the attribute @attr = @count. */
static PyObject *kf_count_error(PyObject *type, PyObject *msg,
				const char *attr, Py_ssize_t count)
{
	PyObject *exc, *c;

	if (msg == NULL)
		return NULL;
	exc = PyObject_CallFunctionObjArgs(type, msg, NULL);
	Py_DECREF(msg);
	if (exc == NULL)
		return NULL;
	c = PyLong_FromSsize_t(count);
	if (c == NULL || PyObject_SetAttrString(exc, attr, c) < 0) {
		Py_XDECREF(c);
		Py_DECREF(exc);
		return NULL;
	}
	Py_DECREF(c);
	PyErr_SetObject(type, exc);
	Py_DECREF(exc);
	return NULL;
}

/*
 * Fill @to[*done, n) from the stream until @deadline: 0 when full,
 * -EPIPE when the stream ended first, -ETIMEDOUT (what was there is taken
 * either way, counted in *done), -1 with an exception.  It waits for a
 * quarter of the fifo at a time (or what is left), so that the producer
 * refills the ring while this side copies out of it.
 */
static int kf_fill(kfpy_kfifo *k, const char *method, unsigned char *to,
		   Py_ssize_t n, long long deadline, Py_ssize_t *done)
{
	unsigned int r, want, quarter;
	int w;

	while (*done < n) {
		if (k->freed) {
			kf_freed_error(method);
			return -1;
		}
		quarter = kfifo_size(&k->st->fifo) / 4;
		want = kf_clamp(n - *done);
		if (want > quarter)
			want = quarter > 0 ? quarter : 1;
		if (kf_wait(k, method, KF_TAKE_LEN, want, deadline, &w) < 0 ||
		    kf_out_into_call(k, method, to + *done, kf_clamp(n - *done),
				     &r) < 0)
			return -1;
		*done += (Py_ssize_t)r;
		if (w != 0 && *done < n)
			return w == -EPIPE ? -EPIPE : -ETIMEDOUT;
	}
	return 0;
}

/* The exception of a whole read that stopped: @taken bytes are in the
 * caller's buffer (and gone from the fifo). */
static PyObject *kf_short_error(const char *method, int why, Py_ssize_t taken,
				Py_ssize_t n)
{
	if (why == -EPIPE)
		return kf_count_error(PyExc_EOFError,
				      PyUnicode_FromFormat("Kfifo.%s(): the stream "
							   "ended after %zd of %zd "
							   "bytes (taken by this "
							   "call)", method, taken, n),
				      "taken", taken);
	return kf_count_error(kfpy_Empty,
			      PyUnicode_FromFormat("Kfifo.%s(): timed out after "
						   "%zd of %zd bytes (taken by "
						   "this call)", method, taken, n),
			      "taken", taken);
}

/*
 * Fill all @n bytes of @to.  When @n fits the fifo it is all or nothing,
 * as get_exactly: wait until @n bytes are stored, then take them (a
 * timeout or an end of stream before that removes nothing).  A longer
 * buffer streams through the fifo and may stop part way (*taken says how
 * far).  0 when filled; 1 at an end of stream before any byte; -1 with an
 * exception.
 */
static int kf_whole(kfpy_kfifo *k, const char *method, unsigned char *to,
		    Py_ssize_t n, long long deadline)
{
	Py_ssize_t done = 0;
	unsigned int r;
	int w;

	if (k->freed) {
		kf_freed_error(method);
		return -1;
	}
	if (n <= (Py_ssize_t)kfifo_size(&k->st->fifo)) {
		if (kf_wait(k, method, KF_TAKE_LEN, (unsigned int)n, deadline,
			    &w) < 0)
			return -1;
		if (w == -EPIPE && kfifo_is_empty(&k->st->fifo))
			return 1;
		if (w == -EPIPE) {
			kf_count_error(PyExc_EOFError,
				       PyUnicode_FromFormat("Kfifo.%s(): the stream "
							    "ended with fewer than "
							    "%zd bytes stored "
							    "(nothing taken)",
							    method, n),
				       "taken", 0);
			return -1;
		}
		if (w != 0) {
			kf_short_error(method, -ETIMEDOUT, 0, n);
			return -1;
		}
		if (kf_out_into_call(k, method, to, (unsigned int)n, &r) < 0)
			return -1;
		done = (Py_ssize_t)r;	/* n, unless another consumer was first */
	}
	w = kf_fill(k, method, to, n, deadline, &done);
	if (w == 0)
		return 0;
	if (w == -EPIPE && done == 0)
		return 1;
	if (w != -1)
		kf_short_error(method, w, done, n);
	return -1;
}

static int kf_whole_arg(PyObject *whole, const char *method)
{
	if (whole == Py_True)
		return 1;
	if (whole == Py_False)
		return 0;
	PyErr_Format(PyExc_TypeError, "Kfifo.%s(): whole must be True or "
		     "False, not %.100s", method, Py_TYPE(whole)->tp_name);
	return -1;
}

PyObject *kfpy_get_into(kfpy_kfifo *k, const char *method, void *to,
			unsigned int n, PyObject *timeout, PyObject *whole)
{
	long long deadline;
	int w = kf_whole_arg(whole, method);

	if (w <= 0)
		return w < 0 ? NULL : kf_get_common(k, method, to, n, timeout);
	if (kf_deadline(timeout, method, &deadline) < 0)
		return NULL;
	if (n == 0)
		return PyLong_FromLong(0);
	w = kf_whole(k, method, to, n, deadline);
	if (w < 0)
		return NULL;
	return PyLong_FromUnsignedLong(w == 0 ? n : 0);
}

/*
 * Frames: messages of any length over the byte stream, each an 8-byte
 * little-endian length followed by the bytes (docs/frames.md).
 */
#define KF_FRAME_HDR 8

static void kf_frame_header(unsigned char h[KF_FRAME_HDR], unsigned long long n)
{
	int i;

	for (i = 0; i < KF_FRAME_HDR; i++)
		h[i] = (unsigned char)(n >> (8 * i));
}

/*
 * A frame is its header and its data, stored (taken) by several calls with
 * waits between them: on a side of "many" another producer's (consumer's)
 * calls would come between them and split or mix frames, so frames are
 * refused there, nothing moved (records are the calls for pools).
 */
static int kf_frame_side_ok(kfpy_kfifo *k, const char *method, int prod)
{
	if (!(kfifo_mode(&k->st->fifo) &
	      (prod ? KFIFO_MANY_PRODUCERS : KFIFO_MANY_CONSUMERS)))
		return 0;
	PyErr_Format(PyExc_ValueError,
		     "Kfifo.%s(): frames need a fifo of one %s (this one has "
		     "%s='many'); use %s", method, prod ? "producer" : "consumer",
		     prod ? "producers" : "consumers",
		     prod ? "put_rec()/put_recs()" : "get_rec()/get_recs()");
	return -1;
}

PyObject *kfpy_put_frame(kfpy_kfifo *k, const char *method, const void *data,
			 Py_ssize_t n, PyObject *timeout)
{
	unsigned char h[KF_FRAME_HDR];
	unsigned long long total = (unsigned long long)n + KF_FRAME_HDR;
	Py_ssize_t done = 0;
	long long deadline;
	int r, w;

	if (kf_deadline(timeout, method, &deadline) < 0)
		return NULL;
	/* kept, here and after each kf_deadline(): the timeout's __float__
	 * ran after the check of self, and may have freed the fifo */
	if (k->freed)
		return kf_freed_error(method);
	if (kf_frame_side_ok(k, method, 1) < 0)
		return NULL;
	kf_frame_header(h, (unsigned long long)n);
	if (total <= kfifo_size(&k->st->fifo)) {
		/* whole or not at all: wait for room for all of it */
		if (kfifo_is_closed(&k->st->fifo))
			return kf_closed_error(method, 0, (Py_ssize_t)total);
		if (kf_wait(k, method, KF_WAIT_AVAIL, (unsigned int)total,
			    deadline, &w) < 0)
			return NULL;
		if (w == -EPIPE)
			return kf_closed_error(method, 0, (Py_ssize_t)total);
		if (w != 0)
			return kf_put_error(kfpy_Full,
					    PyUnicode_FromFormat("Kfifo.%s(): timed "
								 "out (nothing stored)",
								 method), 0);
	}
	r = kf_put_span(k, method, h, KF_FRAME_HDR, deadline, &done);
	if (r == 0)
		r = kf_put_span(k, method, data, n, deadline, &done);
	if (r == 0)
		Py_RETURN_NONE;
	if (r == -EPIPE)
		return kf_closed_error(method, done, (Py_ssize_t)total);
	if (r == -ETIMEDOUT)
		return kf_put_error(kfpy_Full,
				    PyUnicode_FromFormat("Kfifo.%s(): timed out "
							 "with %zd of %zd bytes (header "
							 "included) stored by this "
							 "call", method, done,
							 (Py_ssize_t)total),
				    done);
	return NULL;
}

/*
 * Wait for the next frame's header and read it without taking it: 0 with
 * the length in *len, 1 at end of stream (closed, nothing stored), -1 with
 * an exception (timeout: kfifo.Empty; a header cut short: EOFError).
 */
static int kf_frame_peek(kfpy_kfifo *k, const char *method, long long deadline,
			 unsigned long long *len)
{
	unsigned char h[KF_FRAME_HDR];
	int w, i;

	if (kf_wait(k, method, KF_WAIT_LEN, KF_FRAME_HDR, deadline, &w) < 0)
		return -1;
	if (w == -EPIPE && kfifo_is_empty(&k->st->fifo))
		return 1;
	if (w == -EPIPE) {
		PyErr_Format(PyExc_EOFError, "Kfifo.%s(): the stream ended in a "
			     "frame's header (nothing taken)", method);
		return -1;
	}
	if (w != 0) {
		kf_short_error(method, -ETIMEDOUT, 0, KF_FRAME_HDR);
		return -1;
	}
	if (kf_enter(k, &k->st->cons, method) < 0)
		return -1;
	if (kfifo_out_peek(&k->st->fifo, h, KF_FRAME_HDR, 0) != KF_FRAME_HDR) {
		/* another consumer was first */
		return kf_frame_peek(k, method, deadline, len);
	}
	*len = 0;
	for (i = KF_FRAME_HDR - 1; i >= 0; i--)
		*len = *len << 8 | h[i];
	return 0;
}

/* The frame of length @len after its header: into @to. */
static int kf_frame_body(kfpy_kfifo *k, const char *method, unsigned char *to,
			 Py_ssize_t len, long long deadline)
{
	int w;

	if (len + KF_FRAME_HDR <= (Py_ssize_t)kfifo_size(&k->st->fifo)) {
		/* it fits: all or nothing, header included */
		if (kf_wait(k, method, KF_WAIT_LEN,
			    (unsigned int)(len + KF_FRAME_HDR), deadline, &w) < 0)
			return -1;
		if (w == -EPIPE) {
			PyErr_Format(PyExc_EOFError, "Kfifo.%s(): the stream ended "
				     "within a frame of %zd bytes (nothing taken)",
				     method, len);
			return -1;
		}
		if (w != 0) {
			kf_short_error(method, -ETIMEDOUT, 0, len);
			return -1;
		}
	}
	if (kf_enter(k, &k->st->cons, method) < 0)
		return -1;
	kfifo_skip(&k->st->fifo, KF_FRAME_HDR);
	w = kf_whole(k, method, to, len, deadline);
	if (w == 1) {
		w = -1;
		kf_short_error(method, -EPIPE, 0, len);
	}
	return w;
}

static int kf_frame_len_ok(const char *method, unsigned long long len,
			   unsigned long long limit)
{
	if (len <= limit)
		return 0;
	PyErr_Format(PyExc_ValueError, "Kfifo.%s(): the next frame has %llu "
		     "bytes, more than the %llu this call can take (nothing "
		     "taken)", method, len, limit);
	return -1;
}

/* The common start of get_frame and get_frame_into: the deadline, then
 * the next frame's length (kf_frame_peek's answer). */
static int kf_frame_start(kfpy_kfifo *k, const char *method, PyObject *timeout,
			  long long *deadline, unsigned long long *len)
{
	if (kf_deadline(timeout, method, deadline) < 0)
		return -1;
	if (k->freed) {
		kf_freed_error(method);
		return -1;
	}
	if (kf_frame_side_ok(k, method, 0) < 0)
		return -1;
	return kf_frame_peek(k, method, *deadline, len);
}

PyObject *kfpy_get_frame(kfpy_kfifo *k, const char *method, PyObject *timeout)
{
	unsigned long long len;
	long long deadline;
	PyObject *res;
	int r = kf_frame_start(k, method, timeout, &deadline, &len);

	if (r < 0)
		return NULL;
	if (r > 0)
		Py_RETURN_NONE;
	if (kf_frame_len_ok(method, len, PY_SSIZE_T_MAX - KF_FRAME_HDR) < 0)
		return NULL;
	res = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)len);
	if (res == NULL)
		return NULL;
	if (kf_frame_body(k, method, (unsigned char *)PyBytes_AS_STRING(res),
			  (Py_ssize_t)len, deadline) < 0) {
		Py_DECREF(res);
		return NULL;
	}
	return res;
}

PyObject *kfpy_get_frame_into(kfpy_kfifo *k, const char *method, void *to,
			      unsigned int n, PyObject *timeout)
{
	unsigned long long len;
	long long deadline;
	int r = kf_frame_start(k, method, timeout, &deadline, &len);

	if (r < 0)
		return NULL;
	if (r > 0)
		Py_RETURN_NONE;
	if (kf_frame_len_ok(method, len, n) < 0 ||
	    kf_frame_body(k, method, to, (Py_ssize_t)len, deadline) < 0)
		return NULL;
	return PyLong_FromUnsignedLongLong(len);
}

/* One record, taken directly (kf_take_rec) with the consumer side
 * entered: 0 with the bytes in *data, or NULL when no whole record is
 * there yet; -1 with an exception. */
static int kf_take_one(kfpy_kfifo *k, const char *method, unsigned int n,
		       unsigned int recsize, PyObject **data)
{
	unsigned int ret, total;

	if (kf_enter(k, &k->st->cons, method) < 0)
		return -1;
	return kf_take_rec(k, n, recsize, data, &ret, &total);
}

PyObject *kfpy_get_exactly(kfpy_kfifo *k, const char *method, unsigned int n,
			   PyObject *timeout)
{
	long long deadline;
	PyObject *data;
	int w;

	if (kf_deadline(timeout, method, &deadline) < 0 ||
	    kf_check_size(k, method, n) < 0)
		return NULL;
	for (;;) {
		if (kf_wait(k, method, KF_TAKE_LEN, n, deadline, &w) < 0)
			return NULL;
		if (w == -EPIPE) {
			PyErr_Format(PyExc_EOFError,
				     "Kfifo.%s(): the stream ended with "
				     "fewer than %u bytes stored", method, n);
			return NULL;
		}
		if (w != 0)
			return kf_timeout_error(method);
		/* all n bytes or none, in one C call: a fixed-size record */
		if (kf_take_one(k, method, n, 0, &data) < 0)
			return NULL;
		if (data != NULL)
			return data;
		/* another consumer thread was first */
	}
}

PyObject *kfpy_put_rec(kfpy_kfifo *k, const char *method, const void *from,
		       unsigned int n, unsigned int recsize, PyObject *timeout)
{
	long long deadline;
	unsigned int r;
	int w;

	if (kf_deadline(timeout, method, &deadline) < 0)
		return NULL;
	if (k->freed)
		return kf_freed_error(method);
	if (!kf_rec_fits(k, n, recsize)) {
		PyErr_Format(PyExc_ValueError,
			     "Kfifo.%s(): a record of %u bytes can never fit "
			     "(header of %u bytes, fifo of %u bytes)", method, n,
			     recsize, kfifo_size(&k->st->fifo));
		return NULL;
	}
	for (;;) {
		if (kfifo_is_closed(&k->st->fifo))
			return kf_closed_error(method, 0, (Py_ssize_t)n);
		if (kf_in_call(k, KF_IN_REC, method, from, n, recsize, NULL, &r) < 0)
			return NULL;
		if (r == 0)
			Py_RETURN_NONE;
		if (kf_wait(k, method, KF_WAIT_AVAIL, n + recsize, deadline, &w) < 0)
			return NULL;
		if (w == -EPIPE)
			return kf_closed_error(method, 0, (Py_ssize_t)n);
		if (w != 0)	/* a record is stored whole: nothing was */
			return kf_put_error(kfpy_Full,
					    PyUnicode_FromFormat("Kfifo.%s(): timed out "
								 "(nothing stored)",
								 method),
					    0);
		if (k->freed)
			return kf_freed_error(method);
	}
}

static int kf_rec_waitable(unsigned int recsize, const char *method)
{
	if (recsize == 1 || recsize == 2)
		return 0;
	PyErr_Format(PyExc_ValueError,
		     "Kfifo.%s(): recsize must be 1 or 2 (a record of recsize 0 "
		     "has no length to wait for), got %u", method, recsize);
	return -1;
}

/*
 * One whole record for @method, waiting until @deadline: a new bytes,
 * Py_None at end of stream, NULL with an exception.
 */
static PyObject *kf_get_one_rec(kfpy_kfifo *k, const char *method,
				unsigned int recsize, long long deadline)
{
	PyObject *data;
	unsigned int l;
	int w;

	/*
	 * Take first, wait only when that finds no whole record: the take
	 * reads the producer's index only when its cached copy shows too
	 * little data, where a wait's check reads it every time, and with a
	 * producer in another process every such read moves a cache line
	 * (and a wait costs a GIL release and a second header read).
	 */
	/* the common case first: a whole record in one run, into the last
	 * one's bytes when nobody holds them (kfpy_internal.h, kfpy_io.c) */
	if (kf_take_rec_reuse(k, recsize, &data))
		return data;
	switch (kf_take_rec_fast(k, recsize, UINT_MAX, &data, &l)) {
	case 1:
		return data;
	case -1:
		return NULL;
	}
	for (;;) {
		data = NULL;
		if (kf_take_recs(k, method, NULL, 1, recsize, &data) < 0)
			return NULL;
		if (data != NULL)
			return data;
		/* none yet, or another consumer was first */
		if (kf_wait(k, method, KF_WAIT_REC, recsize, deadline, &w) < 0)
			return NULL;
		if (w == -EPIPE)
			Py_RETURN_NONE;
		if (w != 0)
			return kf_timeout_error(method);
	}
}

PyObject *kfpy_get_rec(kfpy_kfifo *k, const char *method, unsigned int recsize,
		       PyObject *timeout)
{
	long long deadline;

	if (kf_deadline(timeout, method, &deadline) < 0 ||
	    kf_rec_waitable(recsize, method) < 0)
		return NULL;
	return kf_get_one_rec(k, method, recsize, deadline);
}

/* ---- batches of records ------------------------------------------------------------------ */

/* The exception of a put_recs() that stored @done records, then stopped. */
static PyObject *kf_recs_error(const char *method, PyObject *type,
			       const char *why, Py_ssize_t done, Py_ssize_t n)
{
	return kf_put_error(type,
			    PyUnicode_FromFormat("Kfifo.%s(): %s (%zd of %zd "
						 "records stored by this call)",
						 method, why, done, n),
			    done);
}

/*
 * Every record of @records as a tuple, each checked to be bytes-like and
 * to fit the fifo and its header, so that a bad one stores nothing.
 */
static PyObject *kf_recs_checked(kfpy_kfifo *k, const char *method,
				 PyObject *records, unsigned int recsize)
{
	PyObject *items = PySequence_Tuple(records);
	Py_ssize_t i, limit;
	unsigned int n, size;
	const void *buf;
	Py_buffer view;
	int got;

	if (items == NULL) {
		if (Py_TYPE(records)->tp_iter == NULL && !PySequence_Check(records)) {
			PyErr_Clear();
			PyErr_Format(PyExc_TypeError,
				     "Kfifo.%s(): records must be an iterable "
				     "of bytes-like objects, not %.100s", method,
				     Py_TYPE(records)->tp_name);
		}
		return NULL;
	}
	size = kfifo_size(&k->st->fifo);
	/* the longest record that fits (kf_rec_fits), for the common case */
	limit = size < recsize ? -1 : (Py_ssize_t)(size - recsize);
	if (limit > (Py_ssize_t)kfifo_rec_max(recsize))
		limit = (Py_ssize_t)kfifo_rec_max(recsize);
	for (i = 0; i < PyTuple_GET_SIZE(items); i++) {
		PyObject *item = PyTuple_GET_ITEM(items, i);

		if (PyBytes_CheckExact(item) && PyBytes_GET_SIZE(item) <= limit)
			continue;
		if (!PyObject_CheckBuffer(item)) {
			PyErr_Format(PyExc_TypeError,
				     "Kfifo.%s(): records[%zd] must be a "
				     "bytes-like object, not %.100s", method, i,
				     Py_TYPE(item)->tp_name);
			break;
		}
		got = 0;
		if (kfpy_arg_data(item, method, &view, &got, &buf, &n) < 0)
			break;
		if (got)
			PyBuffer_Release(&view);
		if (k->freed) {	/* the export ran code that freed it */
			kf_freed_error(method);
			break;
		}
		if (!kf_rec_fits(k, n, recsize)) {
			PyErr_Format(PyExc_ValueError,
				     "Kfifo.%s(): records[%zd], of %u bytes, "
				     "can never fit (header of %u bytes, fifo of %u "
				     "bytes); nothing stored", method, i, n, recsize,
				     kfifo_size(&k->st->fifo));
			break;
		}
	}
	if (i < PyTuple_GET_SIZE(items)) {
		Py_DECREF(items);
		return NULL;
	}
	return items;
}

/*
 * put_recs(records, recsize, timeout=None): put_rec for each record, with
 * one deadline for all; records stored in one go through the regions of
 * the core (kf_put_recs_some), so a batch costs one publish, not one per
 * record.  The count stored, or an exception whose ``stored`` says it.
 */
PyObject *kfpy_put_recs(kfpy_kfifo *k, const char *method, PyObject *records,
			unsigned int recsize, PyObject *timeout)
{
	long long deadline;
	PyObject *items, *res = NULL;
	Py_ssize_t i = 0, n;
	unsigned int need;
	int w;

	if (kf_deadline(timeout, method, &deadline) < 0)
		return NULL;
	if (k->freed)
		return kf_freed_error(method);
	items = kf_recs_checked(k, method, records, recsize);
	if (items == NULL)
		return NULL;
	n = PyTuple_GET_SIZE(items);
	while (i < n) {
		if (k->freed) {
			kf_freed_error(method);
			break;
		}
		if (kfifo_is_closed(&k->st->fifo)) {
			kf_recs_error(method, PyExc_BrokenPipeError,
				      "the fifo is closed", i, n);
			break;
		}
		if (kf_put_recs_some(k, method, items, &i, recsize, &need) < 0)
			break;
		if (i == n)
			break;
		if (need == 0)
			continue;	/* stopped at a record that goes alone */
		if (kf_wait(k, method, KF_WAIT_AVAIL, need, deadline, &w) < 0)
			break;
		if (w == -EPIPE) {
			kf_recs_error(method, PyExc_BrokenPipeError,
				      "the fifo is closed", i, n);
			break;
		}
		if (w != 0) {
			kf_recs_error(method, kfpy_Full, "timed out", i, n);
			break;
		}
	}
	if (i == n)
		res = PyLong_FromSsize_t(n);
	Py_DECREF(items);
	return res;
}

/*
 * Wait for a whole record until @deadline, then take up to @max records
 * without waiting more: a new list, empty at end of stream (closed, no
 * whole record left); NULL with an exception.
 */
static PyObject *kf_get_recs(kfpy_kfifo *k, const char *method, Py_ssize_t max,
			     unsigned int recsize, long long deadline)
{
	PyObject *list;
	Py_ssize_t got = 0;
	int w;

	if (k->freed)
		return kf_freed_error(method);
	list = PyList_New(0);
	while (list != NULL && max > 0) {
		got = kf_take_recs(k, method, list, max, recsize, NULL);
		if (got != 0)
			break;
		if (kf_wait(k, method, KF_WAIT_REC, recsize, deadline, &w) < 0) {
			Py_CLEAR(list);
		} else if (w == -EPIPE) {
			break;	/* end of stream: [] */
		} else if (w != 0) {
			Py_CLEAR(list);
			kf_timeout_error(method);
		}
	}
	if (list != NULL && got < 0)
		Py_CLEAR(list);
	return list;
}

PyObject *kfpy_get_recs(kfpy_kfifo *k, const char *method, unsigned int max,
			unsigned int recsize, PyObject *timeout)
{
	long long deadline;

	if (kf_deadline(timeout, method, &deadline) < 0 ||
	    kf_rec_waitable(recsize, method) < 0)
		return NULL;
	return kf_get_recs(k, method, (Py_ssize_t)max, recsize, deadline);
}

/*
 * records(recsize): an iterator of the records until end of stream.  Each
 * next() takes one record, the way get_rec() does (the take is one call
 * without a GIL release when a record is there): a record leaves the fifo
 * only when it is yielded, so a loop that stops early leaves every record
 * it did not see in the fifo for the next reader.  It holds its fifo (and
 * takes part in GC, as it may sit in a cycle with it); once the stream
 * ended it lets the fifo go.
 */
typedef struct {
	PyObject_HEAD
	kfpy_kfifo *fifo;	/* NULL once exhausted */
	unsigned int recsize;
} kf_records;

static PyObject *kf_records_next(PyObject *self)
{
	kf_records *it = (kf_records *)self;
	PyObject *rec;

	if (it->fifo == NULL)
		return NULL;
	kf_check_fork(it->fifo);
	rec = kf_get_one_rec(it->fifo, "records", it->recsize, -1);
	if (rec == Py_None) {	/* end of stream */
		Py_DECREF(rec);
		Py_CLEAR(it->fifo);
		return NULL;
	}
	return rec;
}

static int kf_records_traverse(PyObject *self, visitproc visit, void *arg)
{
	Py_VISIT(((kf_records *)self)->fifo);
	return 0;
}

static int kf_records_clear(PyObject *self)
{
	Py_CLEAR(((kf_records *)self)->fifo);
	return 0;
}

static void kf_records_dealloc(PyObject *self)
{
	PyObject_GC_UnTrack(self);
	kf_records_clear(self);
	PyObject_GC_Del(self);
}

PyTypeObject kf_RecordsType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "kfifo._Records",
	.tp_basicsize = sizeof(kf_records),
	.tp_dealloc = kf_records_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_doc = "The records of a fifo until end of stream (Kfifo.records()).",
	.tp_traverse = kf_records_traverse,
	.tp_clear = kf_records_clear,
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = kf_records_next,
};

PyObject *kfpy_records(kfpy_kfifo *k, const char *method, unsigned int recsize)
{
	kf_records *it;

	if (kf_rec_waitable(recsize, method) < 0)
		return NULL;
	it = PyObject_GC_New(kf_records, &kf_RecordsType);
	if (it == NULL)
		return NULL;
	Py_INCREF(k);
	it->fifo = k;
	it->recsize = recsize;
	PyObject_GC_Track(it);
	return (PyObject *)it;
}

static PyObject *kf_wait_bool(kfpy_kfifo *k, const char *method,
			      enum kf_wait_kind kind, unsigned int n,
			      PyObject *timeout)
{
	long long deadline;
	int w;

	if (kf_deadline(timeout, method, &deadline) < 0 ||
	    kf_check_size(k, method, n) < 0)
		return NULL;
	if (kf_wait(k, method, kind, n, deadline, &w) < 0)
		return NULL;
	return PyBool_FromLong(w == 0);
}

PyObject *kfpy_wait_avail(kfpy_kfifo *k, const char *method, unsigned int n,
			  PyObject *timeout)
{
	return kf_wait_bool(k, method, KF_WAIT_AVAIL, n, timeout);
}

PyObject *kfpy_wait_len(kfpy_kfifo *k, const char *method, unsigned int n,
			PyObject *timeout)
{
	return kf_wait_bool(k, method, KF_WAIT_LEN, n, timeout);
}

/* Either side, any thread: kfifo_close needs no side. */
PyObject *kfpy_close(kfpy_kfifo *k)
{
	kfifo_close(&k->st->fifo);
	Py_RETURN_NONE;
}
