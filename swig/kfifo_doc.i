/* SPDX-License-Identifier: MIT */
/*
 * kfifo_doc.i - numpydoc docstrings of kfifo.Kfifo and kfifo.SpinLock.
 *
 * SWIG puts them in the method tables of its wrappers, which become the
 * methods of the two types (see kfifo.i); the types' own docstrings are in
 * kfifo_py.c.  Each begins with a text signature ("name($self, ...)\n--\n\n")
 * that inspect.signature() and help() understand.
 */

%feature("docstring") kfpy_in %{in_($self, data, /)
--

Put bytes into the fifo (``kfifo_in``).

Parameters
----------
data : bytes-like object
    The bytes to add (any C-contiguous buffer).

Returns
-------
int
    The number of bytes stored: ``min(len(data), avail())``.

Notes
-----
Producer side.
%}

%feature("docstring") kfpy_from_user %{from_user($self, data, /)
--

Put bytes into the fifo (``kfifo_from_user``): the same as ``in_``.

Parameters
----------
data : bytes-like object
    The bytes to add.

Returns
-------
int
    The number of bytes stored.
%}

%feature("docstring") kfpy_in_rec %{in_rec($self, data, recsize, /)
--

Store ``data`` as one record (``kfifo_in_rec``).

A record is a ``recsize``-byte little-endian length header followed by
the data, stored whole or not at all.

Parameters
----------
data : bytes-like object
    The record's bytes.
recsize : {0, 1, 2}
    Header size: 0 (fixed-size records, no header), 1 (records of 0 to
    255 bytes) or 2 (0 to 65535 bytes).

Returns
-------
int
    0 when the record was stored; ``len(data) + 1`` (nothing stored)
    when it does not fit ``avail()`` or the header.

Raises
------
ValueError
    ``recsize`` is not 0, 1 or 2.
%}

%feature("docstring") kfpy_from_user_rec %{from_user_rec($self, data, recsize, /)
--

Store one record (``kfifo_from_user_rec``): the same as ``in_rec``.

Parameters
----------
data : bytes-like object
    The record's bytes.
recsize : {0, 1, 2}
    Header size.

Returns
-------
int
    0 on success, ``len(data) + 1`` when refused.
%}

%feature("docstring") kfpy_in_locked %{in_locked($self, data, lock, /)
--

Put bytes into the fifo under ``lock`` (``kfifo_in_locked``).

Several producer threads that share one ``SpinLock`` may call this at
the same time.

Parameters
----------
data : bytes-like object
    The bytes to add.
lock : SpinLock
    The lock shared by all producers.

Returns
-------
int
    The number of bytes stored.
%}

%feature("docstring") kfpy_out %{out($self, n, /)
--

Take up to ``n`` bytes out of the fifo (``kfifo_out``).

Parameters
----------
n : int
    The most bytes to take, 0 to 2**32 - 1.

Returns
-------
bytes
    ``min(n, len())`` bytes, removed from the fifo.

Raises
------
ValueError
    ``n`` is negative.
OverflowError
    ``n`` does not fit 32 bits.

Notes
-----
Consumer side.
%}

%feature("docstring") kfpy_to_user %{to_user($self, n, /)
--

Take up to ``n`` bytes out (``kfifo_to_user``): the same as ``out``.

Parameters
----------
n : int
    The most bytes to take.

Returns
-------
bytes
    The bytes removed.
%}

%feature("docstring") kfpy_out_into %{out_into($self, buffer, /)
--

Take bytes out of the fifo into ``buffer``, like ``readinto``.

Parameters
----------
buffer : writable bytes-like object
    Filled from its start with up to ``len(buffer)`` bytes (in bytes);
    it is exported for the call, so a ``bytearray`` cannot be resized
    meanwhile.

Returns
-------
int
    The number of bytes copied and removed.
%}

%feature("docstring") kfpy_out_rec %{out_rec($self, n, recsize, /)
--

Take one record out of the fifo (``kfifo_out_rec``).

Parameters
----------
n : int
    The largest record accepted (the C buffer's capacity).
recsize : {0, 1, 2}
    Header size; with 0 the record is exactly ``n`` bytes.

Returns
-------
tuple of (int, bytes, int)
    ``(ret, data, total)``: the C return value (0 on success; the
    record's length when it is longer than ``n``; ``n`` when the fifo
    holds less than a whole record), the record's bytes (``b""`` unless
    ``ret == 0``) and ``*total``, the record's length from its header.
    Nothing is removed unless ``ret == 0``.
%}

%feature("docstring") kfpy_to_user_rec %{to_user_rec($self, n, recsize, /)
--

Take one record out (``kfifo_to_user_rec``): the same as ``out_rec``.

Parameters
----------
n : int
    The largest record accepted.
recsize : {0, 1, 2}
    Header size.

Returns
-------
tuple of (int, bytes, int)
    ``(ret, data, total)`` as for ``out_rec``.
%}

%feature("docstring") kfpy_out_locked %{out_locked($self, n, lock, /)
--

Take up to ``n`` bytes out under ``lock`` (``kfifo_out_locked``).

Several consumer threads that share one ``SpinLock`` may call this at
the same time.

Parameters
----------
n : int
    The most bytes to take.
lock : SpinLock
    The lock shared by all consumers.

Returns
-------
bytes
    The bytes removed.
%}

%feature("docstring") kfpy_peek_rec %{peek_rec($self, recsize, /)
--

The length of the next record (``kfifo_peek_rec``), without removing it.

Parameters
----------
recsize : {0, 1, 2}
    Header size.

Returns
-------
int
    The length in the next record's header; 0 if fewer than ``recsize``
    bytes are stored; ``len()`` for ``recsize`` 0.
%}

%feature("docstring") kfpy_skip %{skip($self, n, /)
--

Drop ``n`` bytes (``kfifo_skip``); ``n >= len()`` empties the fifo.

Parameters
----------
n : int
    The number of bytes to drop.
%}

%feature("docstring") kfpy_skip_rec %{skip_rec($self, recsize, /)
--

Drop the next record (``kfifo_skip_rec``).

If the fifo holds less than a whole record, or ``recsize`` is 0, it is
emptied (the seed's behaviour).

Parameters
----------
recsize : {0, 1, 2}
    Header size.
%}

%feature("docstring") kfpy_put %{put($self, data, timeout=None)
--

Store all of ``data``, waiting for room as needed (like
``socket.sendall``): data longer than the fifo streams through as the
consumer takes it. Producer side. Waiting releases the GIL; Ctrl-C
interrupts it.

Parameters
----------
data : bytes-like
timeout : float or None
    Seconds, counted from the call; ``None`` waits without limit, ``0``
    stores what fits and does not wait.

Raises
------
TimeoutError
    Not all of ``data`` was stored in time; what was stored stays (the
    message says how many bytes).
BrokenPipeError
    The fifo is closed (``close()``).
ValueError
    A negative timeout, or the fifo was freed (also while waiting).
%}

%feature("docstring") kfpy_get %{get($self, n, timeout=None)
--

Wait until at least one byte is stored, then take up to ``n`` bytes (like
``socket.recv``). Consumer side. ``get(0)`` returns ``b""`` at once.

Returns
-------
bytes
    ``b""`` at end of stream (closed and empty).

Raises
------
TimeoutError
    Nothing arrived in time.
%}

%feature("docstring") kfpy_get_into %{get_into($self, buffer, timeout=None)
--

``get`` into a writable buffer, like ``readinto``. Consumer side.

Returns
-------
int
    Bytes written into ``buffer``; 0 at end of stream or for an empty
    buffer.
%}

%feature("docstring") kfpy_get_exactly %{get_exactly($self, n, timeout=None)
--

Wait until ``n`` bytes are stored and take exactly them. Consumer side.

Raises
------
ValueError
    ``n`` is more than ``size()``: it could never be met.
TimeoutError
    Fewer than ``n`` bytes arrived in time; nothing is removed.
EOFError
    The stream ended (closed) with fewer than ``n`` bytes; nothing is
    removed.
%}

%feature("docstring") kfpy_put_rec %{put_rec($self, data, recsize, timeout=None)
--

Wait for room for the whole record, then store it (``kfifo_in_rec``).
Producer side.

Raises
------
ValueError
    The record can never fit: longer than its header can say (255 for
    recsize 1, 65535 for 2) or than the fifo.
BrokenPipeError
    The fifo is closed.
TimeoutError
    No room in time; nothing stored.
%}

%feature("docstring") kfpy_get_rec %{get_rec($self, recsize, timeout=None)
--

Wait for a whole record and take it. Consumer side.

Parameters
----------
recsize : {1, 2}
    A record of recsize 0 has no length to wait for (``ValueError``).

Returns
-------
bytes or None
    The record; ``None`` at end of stream (closed, no whole record left).
%}

%feature("docstring") kfpy_records %{records($self, recsize, /)
--

An iterator of records (``get_rec`` without a timeout) that ends at end
of stream. Consumer side.

Examples
--------
>>> f = Kfifo(64)
>>> f.put_rec(b"one", 1); f.put_rec(b"two", 1); f.close()
>>> list(f.records(1))
[b'one', b'two']
%}

%feature("docstring") kfpy_wait_avail %{wait_avail($self, n, timeout=None)
--

Wait until ``avail() >= n`` (``kfifo_wait_avail``).

Returns
-------
bool
    True when there is room; False on timeout or when the fifo is closed.

Raises
------
ValueError
    ``n`` is more than ``size()``.
%}

%feature("docstring") kfpy_wait_len %{wait_len($self, n, timeout=None)
--

Wait until ``len() >= n`` (``kfifo_wait_len``).

Returns
-------
bool
    True when the bytes are there; False on timeout or at end of stream.

Raises
------
ValueError
    ``n`` is more than ``size()``.
%}

%feature("docstring") kfpy_close %{close($self, /)
--

Mark the end of the stream (``kfifo_close``), from either side or any
thread, and wake every waiter. The other calls go on working: the
consumer drains what is left. ``reset()`` reopens. Not ``free()``: the
memory stays.
%}

%feature("docstring") kfpy_in_prepare %{in_prepare($self, n, /)
--

Writable views of up to ``n`` free bytes at the write position
(``kfifo_in_prepare``): the first view, and a second one (empty unless
the free space wraps around the end of the ring). Write into them in
place, then publish with ``in_finish``. Producer side.

Parameters
----------
n : int
    Bytes wanted; the views cover ``min(n, avail())`` bytes.

Returns
-------
tuple of (memoryview, memoryview)
    Views into the ring buffer itself (``numpy.frombuffer`` works on
    them). While any view (or an array made from one) is alive,
    ``free()`` raises ``BufferError``.

Examples
--------
>>> f = Kfifo(8)
>>> a, b = f.in_prepare(3)
>>> a[:3] = b"abc"; f.in_finish(3)
3
>>> f.out(3)
b'abc'
%}

%feature("docstring") kfpy_in_finish %{in_finish($self, n, /)
--

Publish ``n`` bytes written into the views of ``in_prepare``
(``kfifo_in_finish``): they become visible to the consumer, and a thread
waiting for data wakes. Producer side.

Returns
-------
int
    ``min(n, avail())``: the bytes published.
%}

%feature("docstring") kfpy_out_prepare %{out_prepare($self, n, /)
--

Read-only views of up to ``n`` stored bytes at the read position
(``kfifo_out_prepare``), in order: the first view, then a second one
(empty unless the data wraps). Nothing is removed until ``out_finish``.
Consumer side.

Returns
-------
tuple of (memoryview, memoryview)
    Read-only views into the ring buffer; while any is alive, ``free()``
    raises ``BufferError``.
%}

%feature("docstring") kfpy_out_finish %{out_finish($self, n, /)
--

Remove ``n`` bytes read through ``out_prepare`` (``kfifo_out_finish``);
a thread waiting for room wakes. Consumer side.

Returns
-------
int
    ``min(n, len())``: the bytes removed.
%}

%feature("docstring") kfpy_reset %{reset($self, /)
--

Empty the fifo (``kfifo_reset``: ``in = out = 0``).

Waits for calls in flight on either side.
%}

%feature("docstring") kfpy_reset_out %{reset_out($self, /)
--

Discard all content from the consumer side (``kfifo_reset_out``).
%}

%feature("docstring") kfpy_free %{free($self, /)
--

Free the buffer (``kfifo_free``).

Waits for calls in flight; afterwards every call but ``free()`` raises
``ValueError``. A second ``free()`` is harmless, as in C. A
``buffer=`` object is released (it can be resized again). ``with
Kfifo(n) as f:`` calls ``free()`` on exit.
%}

%feature("docstring") kfpy_len %{len($self, /)
--

The number of bytes stored (``kfifo_len``); also ``len(f)``.

Returns
-------
int
%}

%feature("docstring") kfpy_size %{size($self, /)
--

The buffer size in bytes, a power of two (``kfifo_size``).

Returns
-------
int
%}

%feature("docstring") kfpy_avail %{avail($self, /)
--

The number of free bytes, ``size() - len()`` (``kfifo_avail``).

Returns
-------
int
%}

%feature("docstring") kfpy_is_empty %{is_empty($self, /)
--

Whether the fifo holds no byte (``kfifo_is_empty``).

Returns
-------
bool
%}

%feature("docstring") kfpy_is_full %{is_full($self, /)
--

Whether the fifo has no free byte (``kfifo_is_full``).

Returns
-------
bool
%}

%feature("docstring") kfpy_is_freed %{is_freed($self, /)
--

Whether ``free()`` has run. Never raises.

Returns
-------
bool
%}

%feature("docstring") kfpy_valid %{valid($self, /)
--

Check the fifo's invariants (``kfifo_valid``): the size is a power of
two and ``0 <= len() <= size()``. For tests.

Returns
-------
bool
%}

%feature("docstring") kfpy_enter %{__enter__($self, /)
--

Return the fifo itself.
%}

%feature("docstring") kfpy_exit %{__exit__($self, exc_type, exc, tb, /)
--

Call ``free()``; exceptions propagate.
%}

%feature("docstring") kfpy_reduce_ex %{__reduce_ex__($self, protocol, /)
--

Refuse to pickle (``TypeError``): a fifo is memory of this process.
%}

%feature("docstring") kfpy_spin_locked %{locked($self, /)
--

Whether the lock is held right now (a snapshot, for diagnostics).

Returns
-------
bool
%}
