/* SPDX-License-Identifier: MIT */
/*
 * pool_processes.c - a worker pool and fan-in between processes: several
 * producer processes put jobs into one shared fifo, several worker
 * processes take them, and every job is taken once.
 *
 * The parent lays the fifo out in a sealed memfd with both sides "many"
 * (kfifo_shared_create_mode()), then forks the producers and the workers,
 * which inherit the mapping and attach to it.  A job is a record of two
 * 32-bit numbers: its producer and its sequence number.  Once every
 * producer has exited, the parent closes the fifo; each worker drains what
 * is left, sees the end of the stream, and reports through a pipe how many
 * jobs it took, their sum, and whether each producer's jobs came in order.
 * Build: cc -std=c11 pool_processes.c $(pkg-config --cflags --libs kfifo)
 */
#define _GNU_SOURCE /* fork() under -std=c11 */
#include <kfifo.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PRODUCERS 3
#define WORKERS 3
#define JOBS 20000u               /* per producer */
#define RECSIZE 1                 /* a 1-byte length header per job */
#define PATIENCE_NS 30000000000ll /* a peer gone this long has died */

struct job {
	uint32_t producer, seq;
};

struct report {
	uint64_t count, sum;
	int in_order;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "pool_processes: %s: %s\n", what, strerror(-err));
	exit(1);
}

/* A producer: JOBS jobs, each stored whole; when the fifo is full, wait
 * for room (another producer may fill it first: then try again). */
static int produce(struct kfifo *fifo, uint32_t me)
{
	struct job job = { me, 0 };
	int err;

	for (job.seq = 0; job.seq < JOBS; job.seq++) {
		while (kfifo_in_rec(fifo, &job, sizeof(job), RECSIZE) != 0) {
			err = kfifo_wait_avail(fifo, RECSIZE + sizeof(job),
					       PATIENCE_NS);
			if (err != 0 && err != -EINTR)
				return 1;
		}
	}
	return 0;
}

/* A worker: take jobs until the stream ends; wait when none is stored
 * (another worker may take the one that woke us: then wait again). */
static int work(struct kfifo *fifo, int out)
{
	struct report rep = { 0, 0, 1 };
	uint32_t next[PRODUCERS] = { 0 };
	struct job job;
	unsigned int len;
	int err;

	for (;;) {
		if (kfifo_out_rec(fifo, &job, sizeof(job), RECSIZE, &len) == 0) {
			if (len != sizeof(job) || job.producer >= PRODUCERS)
				return 1;
			/* a worker sees each producer's jobs in its order */
			if (job.seq < next[job.producer])
				rep.in_order = 0;
			next[job.producer] = job.seq + 1;
			rep.count++;
			rep.sum += (uint64_t)job.producer * JOBS + job.seq;
			continue;
		}
		err = kfifo_wait_rec(fifo, RECSIZE, PATIENCE_NS);
		if (err == -EPIPE)
			break; /* closed, and every job taken */
		if (err != 0 && err != -EINTR)
			return 1;
	}
	return write(out, &rep, sizeof(rep)) == (ssize_t)sizeof(rep) ? 0 : 1;
}

/* Fork a child that attaches to the fifo in @block and runs @role. */
static pid_t spawn(struct kfifo_block *block, int role, int out)
{
	struct kfifo mine;
	pid_t pid = fork();
	int err;

	if (pid != 0)
		return pid;
	err = kfifo_shared_attach(&mine, block->mem, block->len);
	if (err)
		die("kfifo_shared_attach", err);
	_exit(role < PRODUCERS ? produce(&mine, (uint32_t)role)
			       : work(&mine, out));
}

int main(void)
{
	const uint64_t n = (uint64_t)PRODUCERS * JOBS;
	struct kfifo_block block;
	struct kfifo fifo;
	struct report rep, all = { 0, 0, 1 };
	pid_t pids[PRODUCERS + WORKERS];
	int err, i, status, pipefd[2], failed = 0;

	err = kfifo_block_create_sealed(&block, kfifo_shared_bytes(4096));
	if (err)
		die("kfifo_block_create_sealed", err);
	err = kfifo_shared_create_mode(&fifo, block.mem, block.len, 4096,
				       KFIFO_MANY_PRODUCERS |
					       KFIFO_MANY_CONSUMERS);
	if (err)
		die("kfifo_shared_create_mode", err);
	if (pipe(pipefd) != 0)
		die("pipe", -errno);
	for (i = 0; i < PRODUCERS + WORKERS; i++) {
		pids[i] = spawn(&block, i, pipefd[1]);
		if (pids[i] < 0)
			die("fork", -errno);
	}
	close(pipefd[1]);
	/* every producer done: end the stream, the workers drain it */
	for (i = 0; i < PRODUCERS + WORKERS; i++) {
		if (i == PRODUCERS)
			kfifo_close(&fifo);
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			failed = 1;
	}
	for (i = 0; i < WORKERS; i++) {
		if (read(pipefd[0], &rep, sizeof(rep)) != (ssize_t)sizeof(rep)) {
			failed = 1;
			break;
		}
		printf("a worker took %llu jobs\n", (unsigned long long)rep.count);
		all.count += rep.count;
		all.sum += rep.sum;
		all.in_order &= rep.in_order;
	}
	kfifo_free(&fifo);
	kfifo_block_close(&block);
	if (failed || all.count != n || all.sum != n * (n - 1) / 2 ||
	    !all.in_order) {
		fprintf(stderr, "pool_processes: %llu jobs taken of %llu%s\n",
			(unsigned long long)all.count, (unsigned long long)n,
			all.in_order ? "" : ", some out of order");
		return 1;
	}
	printf("%llu jobs from %d producers, each taken once by one of %d "
	       "workers, in its producer's order\n",
	       (unsigned long long)n, PRODUCERS, WORKERS);
	return 0;
}
