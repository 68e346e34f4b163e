/* SPDX-License-Identifier: MIT */
/*
 * consumer.c - the install test's program: built against an installed
 * kfifo, once through find_package(kfifo) and once through
 * `pkg-config --cflags --libs kfifo`.  Exits 0 only if the library works.
 */
#include <kfifo.h>

#include <stdio.h>
#include <string.h>

DEFINE_KFIFO(greetings, 64);

int main(void)
{
	struct kfifo f;
	unsigned char out[32];
	unsigned int total = 0;
	int ok = 1;

	if (kfifo_alloc(&f, 100, GFP_KERNEL) != 0)
		return 1;
	ok &= kfifo_size(&f) == 128;
	ok &= kfifo_in(&f, "installed", 9) == 9;
	ok &= kfifo_out(&f, out, sizeof(out)) == 9;
	ok &= memcmp(out, "installed", 9) == 0;
	ok &= kfifo_in_rec(&greetings, "hello", 5, 1) == 0;
	ok &= kfifo_out_rec(&greetings, out, sizeof(out), 1, &total) == 0;
	ok &= total == 5 && memcmp(out, "hello", 5) == 0;
	ok &= kfifo_valid(&f) == 1;
	kfifo_free(&f);
	printf("kfifo %s install consumer: %s\n", KFIFO_VERSION_STRING,
	       ok ? "ok" : "FAILED");
	return ok ? 0 : 1;
}
