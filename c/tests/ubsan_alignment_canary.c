/* SPDX-License-Identifier: MIT */
/*
 * ubsan_alignment_canary.c - proof that the sanitizer stage checks
 * alignment and stops at the first report: it reads an int from an odd
 * address.  ctest expects UBSan's report and never the line after it
 * (built only when KFIFO_UBSAN is on).
 */
#include <stdio.h>
#include <string.h>

int main(void)
{
	static unsigned char bytes[16];
	unsigned char *volatile p = bytes + 1;
	int v;

	memset(bytes, 1, sizeof(bytes));
	v = *(int *)p; /* misaligned on purpose */
	printf("survived a misaligned load (%d): the check is off or recovers\n", v);
	return 0;
}
