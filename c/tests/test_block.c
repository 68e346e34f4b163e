/* SPDX-License-Identifier: MIT */
/*
 * test_block.c - shared memory blocks (kfifo.h, "shared memory blocks"):
 * named blocks created, opened by name and unlinked; sealed memfds that
 * cannot change length; descriptors attached only when sealed or trusted;
 * and every refusal leaving an empty block, checked before anything is
 * mapped (bad lengths and names, files shorter than asked, name
 * collisions).  Finally a fifo laid out in each form moves bytes between
 * two mappings of the same memory.
 */
#define _GNU_SOURCE
#include <kfifo.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_harness.h"

#define PAGE 4096u

static int is_empty(const struct kfifo_block *b)
{
	return b->mem == NULL && b->len == 0 && b->fd == -1 && !b->sealed &&
	       b->name[0] == '\0';
}

static int fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

/* An unsealed memfd of @len bytes, as a careless (or hostile) peer sends. */
static int unsealed_memfd(size_t len)
{
	int fd = memfd_create("test_block", MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, (off_t)len) != 0) {
		perror("memfd");
		exit(2);
	}
	return fd;
}

static void test_create_refuses_a_zero_length_and_bad_names(void)
{
	char longname[KFIFO_BLOCK_NAME_MAX + 2];
	struct kfifo_block b;

	CHECK_INT(kfifo_block_create(&b, NULL, 0, 0600), -EINVAL);
	CHECK(is_empty(&b));
	CHECK_INT(kfifo_block_create(&b, "", PAGE, 0600), -EINVAL);
	CHECK(is_empty(&b));
	CHECK_INT(kfifo_block_create(&b, "kfifo_test/x", PAGE, 0600), -EINVAL);
	CHECK(is_empty(&b));
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	CHECK_INT(kfifo_block_create(&b, longname, PAGE, 0600), -ENAMETOOLONG);
	CHECK(is_empty(&b));
	CHECK_INT(kfifo_block_create_sealed(&b, 0), -EINVAL);
	CHECK(is_empty(&b));
}

static void test_a_random_name_is_new_and_the_block_is_whole(void)
{
	struct kfifo_block a, b;

	CHECK_INT(kfifo_block_create(&a, NULL, PAGE + 1, 0600), 0);
	CHECK_INT(kfifo_block_create(&b, NULL, PAGE, 0600), 0);
	CHECK(strncmp(a.name, "kfifo_", 6) == 0 && strlen(a.name) == 22);
	CHECK(strcmp(a.name, b.name) != 0);
	CHECK(a.mem != NULL && ((uintptr_t)a.mem & (PAGE - 1)) == 0);
	CHECK_UINT(a.len, PAGE + 1);
	CHECK_INT(a.fd, -1);
	CHECK_INT(kfifo_block_is_sealed(&a), 0);
	((unsigned char *)a.mem)[PAGE] = 7; /* the last byte is backed */
	CHECK_INT(kfifo_block_unlink(a.name), 0);
	CHECK_INT(kfifo_block_unlink(b.name), 0);
	kfifo_block_close(&a);
	kfifo_block_close(&b);
	CHECK(is_empty(&a));
}

static void test_a_taken_name_is_refused_and_left_alone(void)
{
	struct kfifo_block a, b;

	CHECK_INT(kfifo_block_create(&a, NULL, PAGE, 0600), 0);
	memset(a.mem, 0x5a, PAGE);
	CHECK_INT(kfifo_block_create(&b, a.name, PAGE * 2, 0600), -EEXIST);
	CHECK(is_empty(&b));
	/* the failed call neither unlinked nor resized it */
	CHECK_INT(kfifo_block_open(&b, a.name, PAGE), 0);
	CHECK_UINT(b.len, PAGE);
	CHECK_UINT(((unsigned char *)b.mem)[PAGE - 1], 0x5a);
	kfifo_block_close(&b);
	CHECK_INT(kfifo_block_unlink(a.name), 0);
	kfifo_block_close(&a);
}

static void test_open_maps_the_same_memory_and_checks_the_length(void)
{
	struct kfifo_block a, b;

	CHECK_INT(kfifo_block_create(&a, NULL, PAGE, 0600), 0);
	CHECK_INT(kfifo_block_open(&b, a.name, 0), 0);
	CHECK(b.mem != a.mem && b.len == PAGE && b.fd == -1);
	CHECK(strcmp(a.name, b.name) == 0);
	((unsigned char *)a.mem)[100] = 42;
	CHECK_UINT(((unsigned char *)b.mem)[100], 42);
	kfifo_block_close(&b);
	/* longer than the file: refused before mapping */
	CHECK_INT(kfifo_block_open(&b, a.name, PAGE + 1), -EINVAL);
	CHECK(is_empty(&b));
	CHECK_INT(kfifo_block_open(&b, "kfifo_test_no_such_block", 0), -ENOENT);
	CHECK(is_empty(&b));
	CHECK_INT(kfifo_block_open(&b, "a/b", 0), -EINVAL);
	CHECK_INT(kfifo_block_open(&b, "", 0), -EINVAL);
	CHECK_INT(kfifo_block_open(&b, "..", 0), -EINVAL);
	CHECK_INT(kfifo_block_open(&b, ".", 0), -EINVAL);
	if (mkdir("/dev/shm/kfifo_test_block_dir", 0700) == 0) {
		CHECK_INT(kfifo_block_open(&b, "kfifo_test_block_dir", 0),
			  -EISDIR);
		rmdir("/dev/shm/kfifo_test_block_dir");
	}
	CHECK_INT(kfifo_block_unlink(a.name), 0);
	kfifo_block_close(&a);
}

static void test_a_file_smaller_than_the_header_is_refused(void)
{
	struct kfifo_block a, b;
	struct kfifo f;
	int fd;

	CHECK_INT(kfifo_block_create(&a, NULL, 64, 0600), 0);
	CHECK_INT(kfifo_block_open(&b, a.name, KFIFO_SHARED_OFF_DATA), -EINVAL);
	CHECK(is_empty(&b));
	/* mapped anyway (min_len 0), kfifo_shared_attach() says no fifo */
	CHECK_INT(kfifo_block_open(&b, a.name, 0), 0);
	CHECK_INT(kfifo_shared_attach(&f, b.mem, b.len), -EINVAL);
	kfifo_block_close(&b);
	CHECK_INT(kfifo_block_unlink(a.name), 0);
	kfifo_block_close(&a);

	CHECK_INT(kfifo_block_create_sealed(&a, 64), 0);
	CHECK_INT(kfifo_block_attach_fd(&b, a.fd, KFIFO_SHARED_OFF_DATA, 0),
		  -EINVAL);
	CHECK(is_empty(&b));
	kfifo_block_close(&a);

	fd = unsealed_memfd(0); /* empty: nothing to map */
	CHECK_INT(kfifo_block_attach_fd(&b, fd, 0, KFIFO_BLOCK_TRUST_UNSEALED),
		  -EINVAL);
	CHECK(is_empty(&b));
	close(fd);
}

static void test_unlink_removes_the_name_not_the_memory(void)
{
	struct kfifo_block a, b;

	CHECK_INT(kfifo_block_create(&a, NULL, PAGE, 0600), 0);
	CHECK_INT(kfifo_block_unlink(a.name), 0);
	CHECK_INT(kfifo_block_unlink(a.name), -ENOENT);
	CHECK_INT(kfifo_block_open(&b, a.name, 0), -ENOENT);
	((unsigned char *)a.mem)[0] = 1; /* still mapped */
	CHECK_UINT(((unsigned char *)a.mem)[0], 1);
	CHECK_INT(kfifo_block_unlink("a/b"), -EINVAL);
	kfifo_block_close(&a);
}

static void test_a_sealed_block_cannot_change_length(void)
{
	struct kfifo_block s;

	CHECK_INT(kfifo_block_create_sealed(&s, PAGE), 0);
	CHECK(s.fd >= 0 && s.name[0] == '\0' && s.len == PAGE);
	CHECK_INT(kfifo_block_is_sealed(&s), 1);
	CHECK(fcntl(s.fd, F_GETFD) & FD_CLOEXEC);
	CHECK_INT(ftruncate(s.fd, PAGE / 2), -1);
	CHECK_INT(errno, EPERM);
	CHECK_INT(ftruncate(s.fd, PAGE * 2), -1);
	CHECK_INT(errno, EPERM);
	CHECK_INT(fcntl(s.fd, F_ADD_SEALS, F_SEAL_WRITE), -1);
	CHECK_INT(errno, EPERM); /* F_SEAL_SEAL: no seal added or removed */
	kfifo_block_close(&s);
	CHECK(is_empty(&s));
	CHECK_INT(kfifo_block_is_sealed(&s), 0);
	kfifo_block_close(&s); /* a second close is harmless */
}

static void test_attach_fd_refuses_an_unsealed_file_unless_trusted(void)
{
	struct kfifo_block b;
	int fd = unsealed_memfd(PAGE);
	int pipefd[2];

	CHECK_INT(kfifo_block_attach_fd(&b, fd, 0, 0), -EPERM);
	CHECK(is_empty(&b));
	CHECK_INT(kfifo_block_attach_fd(&b, fd, 0, KFIFO_BLOCK_TRUST_UNSEALED), 0);
	CHECK(b.fd >= 0 && b.fd != fd && b.len == PAGE);
	CHECK_INT(kfifo_block_is_sealed(&b), 0);
	kfifo_block_close(&b);
	CHECK(fd_is_open(fd)); /* the caller's descriptor is the caller's */
	close(fd);

	CHECK_INT(kfifo_block_attach_fd(&b, -1, 0, 0), -EBADF);
	CHECK_INT(kfifo_block_attach_fd(&b, fd, 0, 0), -EBADF); /* closed */
	CHECK(is_empty(&b));
	if (pipe(pipefd) == 0) { /* not a regular file */
		CHECK_INT(kfifo_block_attach_fd(&b, pipefd[0], 0,
						KFIFO_BLOCK_TRUST_UNSEALED),
			  -EINVAL);
		close(pipefd[0]);
		close(pipefd[1]);
	}
}

/* A fifo laid out in @a moves bytes to a handle attached through @b. */
static void move_bytes(struct kfifo_block *a, struct kfifo_block *b)
{
	struct kfifo prod, cons;
	char out[6] = {0};

	CHECK_INT(kfifo_shared_create(&prod, a->mem, a->len, 64), 0);
	CHECK_INT(kfifo_shared_attach(&cons, b->mem, b->len), 0);
	CHECK_UINT(kfifo_in(&prod, "hello", 5), 5);
	CHECK_UINT(kfifo_out(&cons, out, 5), 5);
	CHECK(strcmp(out, "hello") == 0);
	CHECK(kfifo_is_empty(&prod));
	kfifo_free(&prod);
	kfifo_free(&cons);
}

static void test_a_fifo_in_each_form_crosses_two_mappings(void)
{
	size_t len = kfifo_shared_bytes(64);
	struct kfifo_block a, b;

	CHECK_INT(kfifo_block_create(&a, NULL, len, 0600), 0);
	CHECK_INT(kfifo_block_open(&b, a.name, KFIFO_SHARED_OFF_DATA), 0);
	move_bytes(&a, &b);
	kfifo_block_close(&b);
	CHECK_INT(kfifo_block_unlink(a.name), 0);
	kfifo_block_close(&a);

	CHECK_INT(kfifo_block_create_sealed(&a, len), 0);
	CHECK_INT(kfifo_block_attach_fd(&b, a.fd, KFIFO_SHARED_OFF_DATA, 0), 0);
	CHECK_INT(kfifo_block_is_sealed(&b), 1);
	move_bytes(&a, &b);
	kfifo_block_close(&a); /* b keeps the memfd alive */
	CHECK_UINT(((unsigned char *)b.mem)[KFIFO_SHARED_OFF_DATA], 'h');
	kfifo_block_close(&b);
}

int main(void)
{
	RUN_TEST(test_create_refuses_a_zero_length_and_bad_names);
	RUN_TEST(test_a_random_name_is_new_and_the_block_is_whole);
	RUN_TEST(test_a_taken_name_is_refused_and_left_alone);
	RUN_TEST(test_open_maps_the_same_memory_and_checks_the_length);
	RUN_TEST(test_a_file_smaller_than_the_header_is_refused);
	RUN_TEST(test_unlink_removes_the_name_not_the_memory);
	RUN_TEST(test_a_sealed_block_cannot_change_length);
	RUN_TEST(test_attach_fd_refuses_an_unsealed_file_unless_trusted);
	RUN_TEST(test_a_fifo_in_each_form_crosses_two_mappings);
	return th_finish("test_block");
}
