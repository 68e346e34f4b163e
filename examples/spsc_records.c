/* SPDX-License-Identifier: MIT */
/*
 * spsc_records.c - one producer thread, one consumer thread, no lock.
 *
 * The producer sends numbered text messages as records with a 1-byte
 * length header; the consumer takes them out whole and checks the order.
 * Build: cc -std=c11 -pthread spsc_records.c $(pkg-config --cflags --libs kfifo)
 */
#include <kfifo.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MESSAGES 100000

static struct kfifo fifo;

static void *producer(void *arg)
{
	char msg[32];
	int i;

	(void)arg;
	for (i = 0; i < MESSAGES; i++) {
		unsigned int len = (unsigned int)snprintf(msg, sizeof(msg),
							  "message %d", i);

		/* 0 = stored whole; anything else = no room yet, try again */
		while (kfifo_in_rec(&fifo, msg, len, 1) != 0)
			;
	}
	return NULL;
}

int main(void)
{
	pthread_t thread;
	char msg[256], want[32];
	unsigned int total;
	int i;

	if (kfifo_alloc(&fifo, 4096, GFP_KERNEL) != 0) {
		fprintf(stderr, "kfifo_alloc failed\n");
		return 1;
	}
	pthread_create(&thread, NULL, producer, NULL);
	for (i = 0; i < MESSAGES;) {
		if (kfifo_out_rec(&fifo, msg, sizeof(msg), 1, &total) != 0)
			continue; /* empty: the producer is behind */
		snprintf(want, sizeof(want), "message %d", i);
		if (total != strlen(want) || memcmp(msg, want, total) != 0) {
			fprintf(stderr, "out of order at %d\n", i);
			return 1;
		}
		i++;
	}
	pthread_join(thread, NULL);
	printf("%d records received in order; fifo empty: %s\n", MESSAGES,
	       kfifo_is_empty(&fifo) ? "yes" : "no");
	kfifo_free(&fifo);
	return 0;
}
