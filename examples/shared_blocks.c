/* SPDX-License-Identifier: MIT */
/*
 * shared_blocks.c - a fifo between two processes, in each form of shared
 * memory block.
 *
 * Sealed: the parent creates a sealed memfd and lays a fifo out in it; the
 * child attaches the descriptor (inherited here; a process would get it
 * the same way through SCM_RIGHTS), and no one can shrink the block under
 * either of them.  Named: the parent creates a block with a random name,
 * the child opens it by that name; the parent, which created it, unlinks
 * it.  The parent produces numbers, the child consumes and checks them.
 * Build: cc -std=c11 shared_blocks.c $(pkg-config --cflags --libs kfifo)
 */
#define _GNU_SOURCE /* fork() under -std=c11 */
#include <kfifo.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NUMBERS 10000u
#define PATIENCE_NS 30000000000ll /* a peer gone this long has died */

static void die(const char *what, int err)
{
	fprintf(stderr, "shared_blocks: %s: %s\n", what, strerror(-err));
	exit(1);
}

/* The child: attach to the fifo in @block and take NUMBERS numbers. */
static int consume(struct kfifo_block *block)
{
	struct kfifo fifo;
	unsigned int i, got;
	int err = kfifo_shared_attach(&fifo, block->mem, block->len);

	if (err)
		die("kfifo_shared_attach", err);
	for (i = 0; i < NUMBERS; i++) {
		if (kfifo_wait_len(&fifo, sizeof(got), PATIENCE_NS) != 0 ||
		    kfifo_out(&fifo, &got, sizeof(got)) != sizeof(got) ||
		    got != i)
			return 1;
	}
	kfifo_free(&fifo);
	kfifo_block_close(block);
	return 0;
}

/* The parent: a fifo in @block, NUMBERS numbers into it, then wait for
 * the child (which maps the block its own way, @open) to check them. */
static int produce(struct kfifo_block *block, int (*open)(struct kfifo_block *))
{
	struct kfifo fifo;
	int err, status;
	unsigned int i;
	pid_t pid;

	err = kfifo_shared_create(&fifo, block->mem, block->len, 256);
	if (err)
		die("kfifo_shared_create", err);
	pid = fork();
	if (pid < 0)
		die("fork", -1);
	if (pid == 0) {
		struct kfifo_block mine;

		kfifo_free(&fifo); /* the parent's handle, not ours */
		err = open(&mine);
		if (err)
			die("opening the block", err);
		_exit(consume(&mine));
	}
	for (i = 0; i < NUMBERS; i++) {
		if (kfifo_wait_avail(&fifo, sizeof(i), PATIENCE_NS) != 0 ||
		    kfifo_in(&fifo, &i, sizeof(i)) != sizeof(i))
			break;
	}
	kfifo_free(&fifo);
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0 && i == NUMBERS;
}

static struct kfifo_block sealed, named;

static int attach_sealed(struct kfifo_block *mine)
{
	return kfifo_block_attach_fd(mine, sealed.fd, KFIFO_SHARED_OFF_DATA, 0);
}

static int open_named(struct kfifo_block *mine)
{
	return kfifo_block_open(mine, named.name, KFIFO_SHARED_OFF_DATA);
}

int main(void)
{
	size_t len = kfifo_shared_bytes(256);
	int ok, ok_named, err;

	err = kfifo_block_create_sealed(&sealed, len);
	if (err)
		die("kfifo_block_create_sealed", err);
	ok = produce(&sealed, attach_sealed);
	printf("sealed memfd (sealed: %s): %u numbers %s\n",
	       kfifo_block_is_sealed(&sealed) ? "yes" : "no", NUMBERS,
	       ok ? "received in order" : "LOST");
	kfifo_block_close(&sealed);

	err = kfifo_block_create(&named, NULL, len, 0600);
	if (err)
		die("kfifo_block_create", err);
	ok_named = produce(&named, open_named);
	printf("named block: %u numbers %s\n", NUMBERS,
	       ok_named ? "received in order" : "LOST");
	err = kfifo_block_unlink(named.name);
	kfifo_block_close(&named);
	if (err)
		die("kfifo_block_unlink", err);
	return ok && ok_named ? 0 : 1;
}
