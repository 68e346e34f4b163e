/* SPDX-License-Identifier: MIT */
/*
 * kfpy_methods.h - every method of kfifo.Kfifo and kfifo.SpinLock, each
 * declared once, here.  No include guard: it is a table, read with
 * KFPY_METHOD defined by the reader:
 *
 *   KFPY_METHOD(type, name, c_function, kw, (c_parameters), docstring)
 *
 * type        Kfifo or SpinLock: whose method table it goes into
 * name        the Python name
 * c_function  the C body (kfpy_*.c); its prototype is the parameters here
 * kw          KW: the arguments may be given by keyword; POS: positional;
 *             FAST_KW, FAST_POS: the same, through a hand-written
 *             METH_FASTCALL wrapper c_function##_fast (kfpy_args.c) that
 *             SWIG does not see: the hot calls, where SWIG's tuple
 *             unpacking and keyword parsing cost more than the call
 * parameters  what SWIG wraps, each of an argument kind of kfifo_py.h
 *             (kfpy_count, kfpy_timeout, ...): the typemaps of kfifo.i
 *             convert each Python argument by its kind, never by its
 *             name (`self` is the object the method is called on; a
 *             kfpy_live self is refused once freed, so a body need not
 *             check); for FAST_* the C body the _fast wrapper calls with
 *             the same conversions and the same check
 * docstring   numpydoc, starting with the text signature
 *             ("name($self, ...)\n--\n\n") that inspect.signature() reads
 *
 * Readers: kfifo.i (the SWIG declarations, %rename and %feature("kwargs")),
 * kfifo_py.h (the C prototypes), the %init code of kfifo.i (the two
 * types' method tables, names and docstrings) and
 * tests/test_binding_safety.py (the table against kfifo/__init__.pyi and
 * the tests' call lists).
 */
/* producer side */
KFPY_METHOD(Kfifo, in_, kfpy_in, POS,
	(kfpy_live *self, kfpy_inbuf data, kfpy_buflen n),
	"in_($self, data, /)\n"
	"--\n"
	"\n"
	"Put bytes into the fifo (``kfifo_in``).\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"data : bytes-like object\n"
	"    The bytes to add (any C-contiguous buffer).\n"
	"\n"
	"Returns\n"
	"-------\n"
	"int\n"
	"    The number of bytes stored: ``min(len(data), avail())``.\n"
	"\n"
	"Notes\n"
	"-----\n"
	"Producer side.")
KFPY_METHOD(Kfifo, from_user, kfpy_from_user, POS,
	(kfpy_live *self, kfpy_inbuf data, kfpy_buflen n),
	"from_user($self, data, /)\n"
	"--\n"
	"\n"
	"Put bytes into the fifo (``kfifo_from_user``): the same as ``in_``.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"data : bytes-like object\n"
	"    The bytes to add.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"int\n"
	"    The number of bytes stored.")
KFPY_METHOD(Kfifo, in_rec, kfpy_in_rec, FAST_POS,
	(kfpy_live *self, kfpy_inbuf data, kfpy_buflen n, kfpy_recsize recsize),
	"in_rec($self, data, recsize, /)\n"
	"--\n"
	"\n"
	"Store ``data`` as one record (``kfifo_in_rec``).\n"
	"\n"
	"A record is a ``recsize``-byte little-endian length header followed by\n"
	"the data, stored whole or not at all.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"data : bytes-like object\n"
	"    The record's bytes.\n"
	"recsize : {0, 1, 2}\n"
	"    Header size: 0 (fixed-size records, no header), 1 (records of 0 to\n"
	"    255 bytes) or 2 (0 to 65535 bytes).\n"
	"\n"
	"Returns\n"
	"-------\n"
	"int\n"
	"    0 when the record was stored; ``len(data) + 1`` (nothing stored)\n"
	"    when it does not fit ``avail()`` or the header.\n"
	"\n"
	"Raises\n"
	"------\n"
	"ValueError\n"
	"    ``recsize`` is not 0, 1 or 2.")
KFPY_METHOD(Kfifo, from_user_rec, kfpy_from_user_rec, POS,
	(kfpy_live *self, kfpy_inbuf data, kfpy_buflen n, kfpy_recsize recsize),
	"from_user_rec($self, data, recsize, /)\n"
	"--\n"
	"\n"
	"Store one record (``kfifo_from_user_rec``): the same as ``in_rec``.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"data : bytes-like object\n"
	"    The record's bytes.\n"
	"recsize : {0, 1, 2}\n"
	"    Header size.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"int\n"
	"    0 on success, ``len(data) + 1`` when refused.")
KFPY_METHOD(Kfifo, in_locked, kfpy_in_locked, POS,
	(kfpy_live *self, kfpy_inbuf data, kfpy_buflen n, kfpy_spinlock *lock),
	"in_locked($self, data, lock, /)\n"
	"--\n"
	"\n"
	"Put bytes into the fifo under ``lock`` (``kfifo_in_locked``).\n"
	"\n"
	"Several producer threads that share one ``SpinLock`` may call this at\n"
	"the same time.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"data : bytes-like object\n"
	"    The bytes to add.\n"
	"lock : SpinLock\n"
	"    The lock shared by all producers.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"int\n"
	"    The number of bytes stored.")

/* consumer side */
KFPY_METHOD(Kfifo, out, kfpy_out, POS,
	(kfpy_live *self, kfpy_count n),
	"out($self, n, /)\n"
	"--\n"
	"\n"
	"Take up to ``n`` bytes out of the fifo (``kfifo_out``).\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"n : int\n"
	"    The most bytes to take, 0 to 2**32 - 1.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"bytes\n"
	"    ``min(n, len())`` bytes, removed from the fifo.\n"
	"\n"
	"Raises\n"
	"------\n"
	"ValueError\n"
	"    ``n`` is negative.\n"
	"OverflowError\n"
	"    ``n`` does not fit 32 bits.\n"
	"\n"
	"Notes\n"
	"-----\n"
	"Consumer side.")
KFPY_METHOD(Kfifo, to_user, kfpy_to_user, POS,
	(kfpy_live *self, kfpy_count n),
	"to_user($self, n, /)\n"
	"--\n"
	"\n"
	"Take up to ``n`` bytes out (``kfifo_to_user``): the same as ``out``.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"n : int\n"
	"    The most bytes to take.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"bytes\n"
	"    The bytes removed.")
KFPY_METHOD(Kfifo, out_into, kfpy_out_into, POS,
	(kfpy_live *self, kfpy_outbuf buffer, kfpy_buflen n),
	"out_into($self, buffer, /)\n"
	"--\n"
	"\n"
	"Take bytes out of the fifo into ``buffer``, like ``readinto``.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"buffer : writable bytes-like object\n"
	"    Filled from its start with up to ``len(buffer)`` bytes (in bytes);\n"
	"    it is exported for the call, so a ``bytearray`` cannot be resized\n"
	"    meanwhile.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"int\n"
	"    The number of bytes copied and removed.")
KFPY_METHOD(Kfifo, out_rec, kfpy_out_rec, FAST_POS,
	(kfpy_live *self, kfpy_count n, kfpy_recsize recsize),
	"out_rec($self, n, recsize, /)\n"
	"--\n"
	"\n"
	"Take one record out of the fifo (``kfifo_out_rec``).\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"n : int\n"
	"    The largest record accepted (the C buffer's capacity).\n"
	"recsize : {0, 1, 2}\n"
	"    Header size; with 0 the record is exactly ``n`` bytes.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"tuple of (int, bytes, int)\n"
	"    ``(ret, data, total)``: the C return value (0 on success; the\n"
	"    record's length when it is longer than ``n``; ``n`` when the fifo\n"
	"    holds less than a whole record), the record's bytes (``b\"\"`` unless\n"
	"    ``ret == 0``) and ``*total``, the record's length from its header.\n"
	"    Nothing is removed unless ``ret == 0``.")
KFPY_METHOD(Kfifo, to_user_rec, kfpy_to_user_rec, POS,
	(kfpy_live *self, kfpy_count n, kfpy_recsize recsize),
	"to_user_rec($self, n, recsize, /)\n"
	"--\n"
	"\n"
	"Take one record out (``kfifo_to_user_rec``): the same as ``out_rec``.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"n : int\n"
	"    The largest record accepted.\n"
	"recsize : {0, 1, 2}\n"
	"    Header size.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"tuple of (int, bytes, int)\n"
	"    ``(ret, data, total)`` as for ``out_rec``.")
KFPY_METHOD(Kfifo, out_locked, kfpy_out_locked, POS,
	(kfpy_live *self, kfpy_count n, kfpy_spinlock *lock),
	"out_locked($self, n, lock, /)\n"
	"--\n"
	"\n"
	"Take up to ``n`` bytes out under ``lock`` (``kfifo_out_locked``).\n"
	"\n"
	"Several consumer threads that share one ``SpinLock`` may call this at\n"
	"the same time.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"n : int\n"
	"    The most bytes to take.\n"
	"lock : SpinLock\n"
	"    The lock shared by all consumers.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"bytes\n"
	"    The bytes removed.")
KFPY_METHOD(Kfifo, peek_rec, kfpy_peek_rec, POS,
	(kfpy_live *self, kfpy_recsize recsize),
	"peek_rec($self, recsize, /)\n"
	"--\n"
	"\n"
	"The length of the next record (``kfifo_peek_rec``), without removing it.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"recsize : {0, 1, 2}\n"
	"    Header size.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"int\n"
	"    The length in the next record's header; 0 if fewer than ``recsize``\n"
	"    bytes are stored; ``len()`` for ``recsize`` 0.")
KFPY_METHOD(Kfifo, skip, kfpy_skip, POS,
	(kfpy_live *self, kfpy_count n),
	"skip($self, n, /)\n"
	"--\n"
	"\n"
	"Drop ``n`` bytes (``kfifo_skip``); ``n >= len()`` empties the fifo.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"n : int\n"
	"    The number of bytes to drop.")
KFPY_METHOD(Kfifo, skip_rec, kfpy_skip_rec, POS,
	(kfpy_live *self, kfpy_recsize recsize),
	"skip_rec($self, recsize, /)\n"
	"--\n"
	"\n"
	"Drop the next record (``kfifo_skip_rec``).\n"
	"\n"
	"If the fifo holds less than a whole record, or ``recsize`` is 0, it is\n"
	"emptied (the seed's behaviour).\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"recsize : {0, 1, 2}\n"
	"    Header size.")
KFPY_METHOD(Kfifo, reset_out, kfpy_reset_out, POS,
	(kfpy_live *self),
	"reset_out($self, /)\n"
	"--\n"
	"\n"
	"Discard all content from the consumer side (``kfifo_reset_out``).")

/* blocking calls and end of stream; timeout= may be given by keyword */
KFPY_METHOD(Kfifo, put, kfpy_put, FAST_KW,
	(kfpy_live *self, kfpy_method method, kfpy_inbuf data, kfpy_streamlen n,
	 kfpy_timeout timeout),
	"put($self, data, timeout=None)\n"
	"--\n"
	"\n"
	"Store all of ``data``, waiting for room as needed (like\n"
	"``socket.sendall``): data longer than the fifo streams through as the\n"
	"consumer takes it. Producer side. Waiting releases the GIL; Ctrl-C\n"
	"interrupts it.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"data : bytes-like\n"
	"    Of any length, also more than 2**32 - 1 bytes: it is offered to the\n"
	"    fifo in pieces, never cut short.\n"
	"timeout : float or None\n"
	"    Seconds, counted from the call; ``None`` waits without limit, ``0``\n"
	"    stores what fits and does not wait. A bool is a ``TypeError``\n"
	"    (``queue.Queue``'s ``block`` has no equivalent: use ``timeout=0``).\n"
	"\n"
	"Raises\n"
	"------\n"
	"TimeoutError\n"
	"    Not all of ``data`` was stored in time; what was stored stays, and\n"
	"    the exception's ``stored`` attribute (an int) says how many bytes\n"
	"    this call stored.\n"
	"BrokenPipeError\n"
	"    The fifo is closed (``close()``); ``stored`` as for TimeoutError.\n"
	"ValueError\n"
	"    A negative timeout, or the fifo was freed (also while waiting).")
KFPY_METHOD(Kfifo, get, kfpy_get, FAST_KW,
	(kfpy_live *self, kfpy_method method, kfpy_count n,
	 kfpy_timeout timeout),
	"get($self, n, timeout=None)\n"
	"--\n"
	"\n"
	"Wait until at least one byte is stored, then take up to ``n`` bytes (like\n"
	"``socket.recv``). Consumer side. ``get(0)`` returns ``b\"\"`` at once.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"bytes\n"
	"    ``b\"\"`` at end of stream (closed and empty).\n"
	"\n"
	"Raises\n"
	"------\n"
	"TimeoutError\n"
	"    Nothing arrived in time.")
KFPY_METHOD(Kfifo, get_into, kfpy_get_into, KW,
	(kfpy_live *self, kfpy_method method, kfpy_outbuf buffer, kfpy_buflen n,
	 kfpy_timeout timeout, kfpy_flag whole),
	"get_into($self, buffer, timeout=None, whole=False)\n"
	"--\n"
	"\n"
	"``get`` into a writable buffer, like ``readinto``. Consumer side.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"buffer : writable bytes-like object\n"
	"timeout : float or None\n"
	"    Seconds for the whole call.\n"
	"whole : bool\n"
	"    False: return as soon as some bytes are there. True: fill all of\n"
	"    ``buffer``. A buffer that fits the fifo is filled all or nothing,\n"
	"    as ``get_exactly`` takes its bytes (a timeout or an end of stream\n"
	"    first removes nothing); a longer one streams through the fifo.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"int\n"
	"    Bytes written into ``buffer`` (with ``whole=True``: ``len(buffer)``\n"
	"    in bytes); 0 at end of stream (closed, nothing left) or for an\n"
	"    empty buffer.\n"
	"\n"
	"Raises\n"
	"------\n"
	"kfifo.Empty\n"
	"    Nothing (``whole=True``: not all) arrived in time; with\n"
	"    ``whole=True`` its ``taken`` attribute is the count of bytes\n"
	"    already written into ``buffer`` and removed (0 when it fits the\n"
	"    fifo).\n"
	"EOFError\n"
	"    ``whole=True`` and the stream ended part way; ``taken`` as above.")
KFPY_METHOD(Kfifo, get_exactly, kfpy_get_exactly, KW,
	(kfpy_live *self, kfpy_method method, kfpy_count n,
	 kfpy_timeout timeout),
	"get_exactly($self, n, timeout=None)\n"
	"--\n"
	"\n"
	"Wait until ``n`` bytes are stored and take exactly them. Consumer side.\n"
	"\n"
	"Raises\n"
	"------\n"
	"ValueError\n"
	"    ``n`` is more than ``size()``: it could never be met.\n"
	"TimeoutError\n"
	"    Fewer than ``n`` bytes arrived in time; nothing is removed.\n"
	"EOFError\n"
	"    The stream ended (closed) with fewer than ``n`` bytes; nothing is\n"
	"    removed.")
KFPY_METHOD(Kfifo, put_frame, kfpy_put_frame, KW,
	(kfpy_live *self, kfpy_method method, kfpy_inbuf data, kfpy_streamlen n,
	 kfpy_timeout timeout),
	"put_frame($self, data, timeout=None)\n"
	"--\n"
	"\n"
	"Store ``data`` as one frame: an 8-byte little-endian length, then the\n"
	"bytes. Frames have no size limit (records stop at 65,535 bytes); one\n"
	"longer than the fifo streams through it. Producer side.\n"
	"\n"
	"Raises\n"
	"------\n"
	"kfifo.Full\n"
	"    No room in time. A frame that fits the fifo (header included) is\n"
	"    stored whole or not at all (``stored`` 0); a longer one may stop\n"
	"    part way: ``stored`` counts the bytes stored, header included, and\n"
	"    the stream is left inside the frame (finish it with ``put`` or\n"
	"    ``close()``).\n"
	"BrokenPipeError\n"
	"    The fifo is closed; ``stored`` as above.")
KFPY_METHOD(Kfifo, get_frame, kfpy_get_frame, KW,
	(kfpy_live *self, kfpy_method method, kfpy_timeout timeout),
	"get_frame($self, timeout=None)\n"
	"--\n"
	"\n"
	"Take the next frame (``put_frame``) whole. Consumer side.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"bytes or None\n"
	"    The frame; ``None`` at end of stream (closed, nothing left).\n"
	"\n"
	"Raises\n"
	"------\n"
	"kfifo.Empty\n"
	"    The frame did not arrive in time. A frame that fits the fifo\n"
	"    (header included) is taken all or nothing; a longer one streams,\n"
	"    and a timeout part way loses it (``taken`` says how many of its\n"
	"    bytes were removed).\n"
	"EOFError\n"
	"    The stream ended inside a frame.\n"
	"ValueError\n"
	"    The header is not a length this process can hold (nothing taken).")
KFPY_METHOD(Kfifo, get_frame_into, kfpy_get_frame_into, KW,
	(kfpy_live *self, kfpy_method method, kfpy_outbuf buffer, kfpy_buflen n,
	 kfpy_timeout timeout),
	"get_frame_into($self, buffer, timeout=None)\n"
	"--\n"
	"\n"
	"``get_frame`` into the start of a writable buffer. Consumer side.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"int or None\n"
	"    The frame's length; ``None`` at end of stream.\n"
	"\n"
	"Raises\n"
	"------\n"
	"ValueError\n"
	"    The frame is longer than ``buffer`` (nothing taken).\n"
	"kfifo.Empty, EOFError\n"
	"    As for ``get_frame``.")
KFPY_METHOD(Kfifo, put_rec, kfpy_put_rec, FAST_KW,
	(kfpy_live *self, kfpy_method method, kfpy_inbuf data, kfpy_buflen n,
	 kfpy_recsize recsize, kfpy_timeout timeout),
	"put_rec($self, data, recsize, timeout=None)\n"
	"--\n"
	"\n"
	"Wait for room for the whole record, then store it (``kfifo_in_rec``).\n"
	"Producer side.\n"
	"\n"
	"Raises\n"
	"------\n"
	"ValueError\n"
	"    The record can never fit: longer than its header can say (255 for\n"
	"    recsize 1, 65535 for 2) or than the fifo.\n"
	"BrokenPipeError\n"
	"    The fifo is closed; nothing stored (``stored`` attribute 0).\n"
	"TimeoutError\n"
	"    No room in time; nothing stored (``stored`` attribute 0: a record\n"
	"    is stored whole or not at all).")
KFPY_METHOD(Kfifo, get_rec, kfpy_get_rec, FAST_KW,
	(kfpy_live *self, kfpy_method method, kfpy_recsize recsize,
	 kfpy_timeout timeout),
	"get_rec($self, recsize, timeout=None)\n"
	"--\n"
	"\n"
	"Wait for a whole record and take it. Consumer side.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"recsize : {1, 2}\n"
	"    A record of recsize 0 has no length to wait for (``ValueError``).\n"
	"\n"
	"Returns\n"
	"-------\n"
	"bytes or None\n"
	"    The record; ``None`` at end of stream (closed, no whole record left).")
KFPY_METHOD(Kfifo, put_recs, kfpy_put_recs, FAST_KW,
	(kfpy_live *self, kfpy_method method, kfpy_object records,
	 kfpy_recsize recsize, kfpy_timeout timeout),
	"put_recs($self, records, recsize, timeout=None)\n"
	"--\n"
	"\n"
	"Store every record of ``records`` in order, each whole, waiting for\n"
	"room as needed: ``put_rec`` for many records in one call. Producer side.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"records : iterable of bytes-like objects\n"
	"    Read whole before anything is stored (a generator is consumed).\n"
	"recsize : {0, 1, 2}\n"
	"    Header size, as for ``put_rec``.\n"
	"timeout : float or None\n"
	"    Seconds for the whole call, counted from its start; ``None`` waits\n"
	"    without limit, ``0`` stores what fits now.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"int\n"
	"    The number of records stored: all of them.\n"
	"\n"
	"Raises\n"
	"------\n"
	"TypeError\n"
	"    ``records`` is not iterable or holds something that is not\n"
	"    bytes-like; nothing stored.\n"
	"ValueError\n"
	"    A record can never fit (longer than its header can say, 255 or\n"
	"    65535, or than the fifo); nothing stored.\n"
	"TimeoutError, BrokenPipeError\n"
	"    No room in time, or the fifo is closed: the records before stay\n"
	"    stored, and the exception's ``stored`` attribute says how many.")
KFPY_METHOD(Kfifo, get_recs, kfpy_get_recs, FAST_KW,
	(kfpy_live *self, kfpy_method method, kfpy_count max,
	 kfpy_recsize recsize, kfpy_timeout timeout),
	"get_recs($self, max, recsize, timeout=None)\n"
	"--\n"
	"\n"
	"Wait for a whole record, then take up to ``max`` records without waiting\n"
	"more: ``get_rec`` for many records in one call. Consumer side.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"max : int\n"
	"    The most records to take; ``get_recs(0, ...)`` returns ``[]`` at once.\n"
	"recsize : {1, 2}\n"
	"    Header size.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"list of bytes\n"
	"    The records, oldest first; ``[]`` at end of stream (closed, no whole\n"
	"    record left).\n"
	"\n"
	"Raises\n"
	"------\n"
	"TimeoutError\n"
	"    No record arrived in time; nothing removed.")
KFPY_METHOD(Kfifo, records, kfpy_records, POS,
	(kfpy_live *self, kfpy_method method, kfpy_recsize recsize),
	"records($self, recsize, /)\n"
	"--\n"
	"\n"
	"An iterator of records (``get_rec`` without a timeout) that ends at end\n"
	"of stream. Consumer side.\n"
	"\n"
	"Each step takes one record: a record leaves the fifo only when it is\n"
	"yielded, so a loop that stops early leaves the rest in the fifo.\n"
	"\n"
	"Examples\n"
	"--------\n"
	">>> f = Kfifo(64)\n"
	">>> f.put_rec(b\"one\", 1); f.put_rec(b\"two\", 1); f.close()\n"
	">>> list(f.records(1))\n"
	"[b'one', b'two']")
KFPY_METHOD(Kfifo, wait_avail, kfpy_wait_avail, KW,
	(kfpy_live *self, kfpy_method method, kfpy_count n,
	 kfpy_timeout timeout),
	"wait_avail($self, n, timeout=None)\n"
	"--\n"
	"\n"
	"Wait until ``avail() >= n`` (``kfifo_wait_avail``).\n"
	"\n"
	"Returns\n"
	"-------\n"
	"bool\n"
	"    True when there is room; False on timeout or when the fifo is closed.\n"
	"\n"
	"Raises\n"
	"------\n"
	"ValueError\n"
	"    ``n`` is more than ``size()``.")
KFPY_METHOD(Kfifo, wait_len, kfpy_wait_len, KW,
	(kfpy_live *self, kfpy_method method, kfpy_count n,
	 kfpy_timeout timeout),
	"wait_len($self, n, timeout=None)\n"
	"--\n"
	"\n"
	"Wait until ``len() >= n`` (``kfifo_wait_len``).\n"
	"\n"
	"Returns\n"
	"-------\n"
	"bool\n"
	"    True when the bytes are there; False on timeout or at end of stream.\n"
	"\n"
	"Raises\n"
	"------\n"
	"ValueError\n"
	"    ``n`` is more than ``size()``.")
KFPY_METHOD(Kfifo, close, kfpy_close, POS,
	(kfpy_live *self),
	"close($self, /)\n"
	"--\n"
	"\n"
	"Mark the end of the stream (``kfifo_close``), from either side or any\n"
	"thread, and wake every waiter. The other calls go on working: the\n"
	"consumer drains what is left. ``reset()`` reopens. Not ``free()``: the\n"
	"memory stays.")
/* event loops: a file descriptor to wait on (kfpy_notify.c) */
KFPY_METHOD(Kfifo, notifier, kfpy_notifier, POS,
	(kfpy_live *self, kfpy_object direction),
	"notifier($self, direction, /)\n"
	"--\n"
	"\n"
	"A new ``Notifier``: a file descriptor for event loops (``kfifo_notifier_open``).\n"
	"\n"
	"While armed, its ``fileno()`` becomes readable when the fifo moves in\n"
	"``direction``, or is closed or freed. Wait on it with ``selectors``,\n"
	"``loop.add_reader``, ``trio.lowlevel.wait_readable`` or\n"
	"``anyio.wait_readable`` instead of blocking a thread.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"direction : {'data', 'room'}\n"
	"    ``'data'``: readable when data is stored (a consumer waits);\n"
	"    ``'room'``: when room is made (a producer waits).\n"
	"\n"
	"Returns\n"
	"-------\n"
	"Notifier\n"
	"    Disarmed; a new registration each call (``with f.notifier('data')\n"
	"    as n:`` arms it and closes it at the end).\n"
	"\n"
	"Raises\n"
	"------\n"
	"ValueError\n"
	"    ``direction`` is not ``'data'`` or ``'room'``, or the fifo was freed.\n"
	"OSError\n"
	"    No notifiers on this system (``errno.ENOSYS``: not Linux, or the\n"
	"    sleep-poll fallback), or no file descriptor left.\n"
	"\n"
	"Notes\n"
	"-----\n"
	"Use: ``n.arm()``; loop: try the call with ``timeout=0``, stop if it\n"
	"succeeded, wait until ``n.fileno()`` is readable, ``n.clear()``. Arming\n"
	"before the check means no publication is missed. A shared fifo's\n"
	"notifiers are woken by publishers in any process.")
/* zero-copy: in_* on the producer side, out_* on the consumer side */
KFPY_METHOD(Kfifo, in_prepare, kfpy_in_prepare, POS,
	(kfpy_live *self, kfpy_count n),
	"in_prepare($self, n, /)\n"
	"--\n"
	"\n"
	"Writable views of up to ``n`` free bytes at the write position\n"
	"(``kfifo_in_prepare``): the first view, and a second one (empty unless\n"
	"the free space wraps around the end of the ring). Write into them in\n"
	"place, then publish with ``in_finish``. Producer side.\n"
	"\n"
	"Parameters\n"
	"----------\n"
	"n : int\n"
	"    Bytes wanted; the views cover ``min(n, avail())`` bytes.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"tuple of (memoryview, memoryview)\n"
	"    Views into the ring buffer itself (``numpy.frombuffer`` works on\n"
	"    them). While any view (or an array made from one) is alive,\n"
	"    ``free()`` raises ``BufferError``.\n"
	"\n"
	"Examples\n"
	"--------\n"
	">>> f = Kfifo(8)\n"
	">>> a, b = f.in_prepare(3)\n"
	">>> a[:3] = b\"abc\"; f.in_finish(3)\n"
	"3\n"
	">>> f.out(3)\n"
	"b'abc'")
KFPY_METHOD(Kfifo, in_finish, kfpy_in_finish, POS,
	(kfpy_live *self, kfpy_count n),
	"in_finish($self, n, /)\n"
	"--\n"
	"\n"
	"Publish ``n`` bytes written into the views of ``in_prepare``\n"
	"(``kfifo_in_finish``): they become visible to the consumer, and a thread\n"
	"waiting for data wakes. Producer side.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"int\n"
	"    ``min(n, avail())``: the bytes published.")
KFPY_METHOD(Kfifo, out_prepare, kfpy_out_prepare, POS,
	(kfpy_live *self, kfpy_count n),
	"out_prepare($self, n, /)\n"
	"--\n"
	"\n"
	"Read-only views of up to ``n`` stored bytes at the read position\n"
	"(``kfifo_out_prepare``), in order: the first view, then a second one\n"
	"(empty unless the data wraps). Nothing is removed until ``out_finish``.\n"
	"Consumer side.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"tuple of (memoryview, memoryview)\n"
	"    Read-only views into the ring buffer; while any is alive, ``free()``\n"
	"    raises ``BufferError``.")
KFPY_METHOD(Kfifo, out_finish, kfpy_out_finish, POS,
	(kfpy_live *self, kfpy_count n),
	"out_finish($self, n, /)\n"
	"--\n"
	"\n"
	"Remove ``n`` bytes read through ``out_prepare`` (``kfifo_out_finish``);\n"
	"a thread waiting for room wakes. Consumer side.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"int\n"
	"    ``min(n, len())``: the bytes removed.")

/* both sides */
KFPY_METHOD(Kfifo, reset, kfpy_reset, POS,
	(kfpy_live *self),
	"reset($self, /)\n"
	"--\n"
	"\n"
	"Empty the fifo (``kfifo_reset``: ``in = out = 0``).\n"
	"\n"
	"Waits for calls in flight on either side.")
KFPY_METHOD(Kfifo, free, kfpy_free, POS,
	(kfpy_any_kfifo *self),
	"free($self, /)\n"
	"--\n"
	"\n"
	"Free the buffer (``kfifo_free``).\n"
	"\n"
	"Waits for calls in flight; afterwards every call but ``free()`` raises\n"
	"``ValueError``. A second ``free()`` is harmless, as in C. A\n"
	"``buffer=`` object is released (it can be resized again). ``with\n"
	"Kfifo(n) as f:`` calls ``close()`` then ``free()`` on exit;\n"
	"``with kfifo.freeing(f):`` only ``free()``.")

/* queries */
KFPY_METHOD(Kfifo, len, kfpy_len, POS,
	(kfpy_live *self),
	"len($self, /)\n"
	"--\n"
	"\n"
	"The number of bytes stored (``kfifo_len``); also ``len(f)``.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"int")
KFPY_METHOD(Kfifo, size, kfpy_size, POS,
	(kfpy_live *self),
	"size($self, /)\n"
	"--\n"
	"\n"
	"The buffer size in bytes, a power of two (``kfifo_size``).\n"
	"\n"
	"Returns\n"
	"-------\n"
	"int")
KFPY_METHOD(Kfifo, avail, kfpy_avail, POS,
	(kfpy_live *self),
	"avail($self, /)\n"
	"--\n"
	"\n"
	"The number of free bytes, ``size() - len()`` (``kfifo_avail``).\n"
	"\n"
	"Returns\n"
	"-------\n"
	"int")
KFPY_METHOD(Kfifo, is_empty, kfpy_is_empty, POS,
	(kfpy_live *self),
	"is_empty($self, /)\n"
	"--\n"
	"\n"
	"Whether the fifo holds no byte (``kfifo_is_empty``).\n"
	"\n"
	"Returns\n"
	"-------\n"
	"bool")
KFPY_METHOD(Kfifo, is_full, kfpy_is_full, POS,
	(kfpy_live *self),
	"is_full($self, /)\n"
	"--\n"
	"\n"
	"Whether the fifo has no free byte (``kfifo_is_full``).\n"
	"\n"
	"Returns\n"
	"-------\n"
	"bool")
KFPY_METHOD(Kfifo, valid, kfpy_valid, POS,
	(kfpy_live *self),
	"valid($self, /)\n"
	"--\n"
	"\n"
	"Check the fifo's invariants (``kfifo_valid``): the size is a power of\n"
	"two and ``0 <= len() <= size()``. For tests.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"bool")
KFPY_METHOD(Kfifo, is_freed, kfpy_is_freed, POS,
	(kfpy_pyself *self),
	"is_freed($self, /)\n"
	"--\n"
	"\n"
	"Whether ``free()`` has run. Never raises.\n"
	"\n"
	"Returns\n"
	"-------\n"
	"bool")

/* protocols */
KFPY_METHOD(Kfifo, __enter__, kfpy_enter, POS,
	(kfpy_pyself *self),
	"__enter__($self, /)\n"
	"--\n"
	"\n"
	"Return the fifo itself.")
KFPY_METHOD(Kfifo, __exit__, kfpy_exit, POS,
	(kfpy_pyself *self, kfpy_object exc_type, kfpy_object exc, kfpy_object tb),
	"__exit__($self, exc_type, exc, tb, /)\n"
	"--\n"
	"\n"
	"End the stream for the peer (``close()``), then ``free()`` this handle,\n"
	"as leaving ``with`` does for a socket; exceptions propagate. Not closed\n"
	"when ``free()`` refuses (views still alive). ``with kfifo.freeing(f):``\n"
	"frees without closing.")
KFPY_METHOD(Kfifo, __reduce_ex__, kfpy_reduce_ex, POS,
	(kfpy_pyself *self, kfpy_object protocol),
	"__reduce_ex__($self, protocol, /)\n"
	"--\n"
	"\n"
	"Refuse to pickle (``TypeError``): a fifo is memory of this process.")
/* kfifo.SpinLock */
KFPY_METHOD(SpinLock, locked, kfpy_spin_locked, POS,
	(kfpy_pyself *self),
	"locked($self, /)\n"
	"--\n"
	"\n"
	"Whether the lock is held right now (a snapshot, for diagnostics).\n"
	"\n"
	"Returns\n"
	"-------\n"
	"bool")
