/* SPDX-License-Identifier: MIT */
/*
 * kfifo_block.c - shared memory blocks to lay shared fifos out in: a named
 * POSIX shared memory object, or a sealed memfd (kfifo.h, "shared memory
 * blocks"; docs/shared-memory.md has the threat model).
 *
 * Every call validates what it maps before mapping it: the length comes
 * from statx() or fstat() of the open file (never from the caller, never
 * from the contents), and a descriptor somebody else sent is mapped only
 * once its seals say nobody can shrink it (or the caller said it trusts the
 * sender).  Creation reserves the pages (posix_fallocate()): tmpfs
 * reserves nothing on ftruncate(), and a page it cannot supply at first
 * touch would be a SIGBUS in whichever process touched it.
 *
 * The memfd parts are Linux only, and go through syscall() with the
 * constants spelled out when the headers lack them, so that the library
 * builds against the old headers of manylinux images too.
 */
#if defined(__linux__)
#define _GNU_SOURCE /* syscall(), F_ADD_SEALS */
#elif !defined(__APPLE__)
#define _POSIX_C_SOURCE 200809L
#endif
#include <kfifo.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/syscall.h>
#ifndef F_ADD_SEALS /* kernel 3.17 */
#define F_ADD_SEALS 1033
#define F_GET_SEALS 1034
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#endif
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001u
#define MFD_ALLOW_SEALING 0x0002u
#endif
#endif

/*
 * On glibc, shm_open() and shm_unlink() are symbols of libc 2.34 and
 * fstat() of 2.33: a library that calls them cannot be loaded by the older
 * glibc of the systems its wheels are made for (manylinux_2_28).  What
 * they do is simple, so it is done here: a POSIX shared memory object of
 * Linux is the file /dev/shm/NAME (glibc opens it with O_NOFOLLOW and
 * O_CLOEXEC), and statx() (glibc 2.28) gives the type and the length.
 * Elsewhere the POSIX calls.
 */
#if defined(__linux__) && defined(__GLIBC__)
#define KFIFO__SHM_DIR "/dev/shm"

static int kfifo__shm_open(const char *path, int flags, mode_t mode)
{
	char file[sizeof(KFIFO__SHM_DIR) + KFIFO_BLOCK_NAME_MAX + 2];

	snprintf(file, sizeof(file), "%s%s", KFIFO__SHM_DIR, path);
	return open(file, flags | O_NOFOLLOW | O_CLOEXEC, mode);
}

static int kfifo__shm_unlink(const char *path)
{
	char file[sizeof(KFIFO__SHM_DIR) + KFIFO_BLOCK_NAME_MAX + 2];

	snprintf(file, sizeof(file), "%s%s", KFIFO__SHM_DIR, path);
	return unlink(file);
}
#else
#define kfifo__shm_open shm_open
#define kfifo__shm_unlink shm_unlink
#endif

/* Whether @fd is a regular file, and its length; -errno on failure. */
static int kfifo__block_stat(int fd, int *regular, uintmax_t *size)
{
#if defined(__linux__) && defined(__GLIBC__) && defined(STATX_SIZE)
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_SIZE, &stx) != 0)
		return -errno;
	*regular = S_ISREG(stx.stx_mode);
	*size = (uintmax_t)stx.stx_size;
#else
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -errno;
	*regular = S_ISREG(st.st_mode);
	*size = st.st_size > 0 ? (uintmax_t)st.st_size : 0;
#endif
	return 0;
}

static void kfifo__block_empty(struct kfifo_block *block)
{
	block->mem = NULL;
	block->len = 0;
	block->fd = -1;
	block->sealed = 0;
	block->name[0] = '\0';
}

/* "/" @name into @path (KFIFO_BLOCK_NAME_MAX + 2 bytes), or -EINVAL,
 * -ENAMETOOLONG.  A '/' inside, "." or ".." would name a directory of
 * /dev/shm (glibc refuses them too). */
static int kfifo__block_path(char *path, const char *name)
{
	size_t n;

	if (name == NULL || name[0] == '\0' || strchr(name, '/') != NULL ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -EINVAL;
	n = strlen(name);
	if (n > KFIFO_BLOCK_NAME_MAX)
		return -ENAMETOOLONG;
	path[0] = '/';
	memcpy(path + 1, name, n + 1);
	return 0;
}

/* The length of the file @fd, checked to be a regular file of at least
 * @min_len (1 at least) bytes that this process can map; or -errno. */
static int kfifo__block_size(int fd, size_t min_len, size_t *len)
{
	uintmax_t size = 0;
	int regular = 0, r = kfifo__block_stat(fd, &regular, &size);

	if (r != 0)
		return r;
	if (!regular || size == 0)
		return -EINVAL;
	if (size > SIZE_MAX)
		return -EFBIG;
	*len = (size_t)size;
	if (*len < (min_len ? min_len : 1))
		return -EINVAL;
	return 0;
}

/* Map all @len bytes of @fd into @block, or -errno (the fd stays open). */
static int kfifo__block_map(struct kfifo_block *block, int fd, size_t len)
{
	void *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (mem == MAP_FAILED)
		return -errno;
	block->mem = mem;
	block->len = len;
	return 0;
}

/* Give @fd @len bytes and reserve them now: -ENOSPC here rather than a
 * SIGBUS at first touch.  A file system that cannot reserve is let be. */
static int kfifo__block_reserve(int fd, size_t len)
{
	int r;

	if ((off_t)len < 0 || (size_t)(off_t)len != len)
		return -EFBIG;
	if (ftruncate(fd, (off_t)len) != 0)
		return -errno;
#if defined(__APPLE__)
	return 0;
#else
	do
		r = posix_fallocate(fd, 0, (off_t)len);
	while (r == EINTR);
	if (r == EOPNOTSUPP || r == ENOSYS)
		return 0;
	return -r;
#endif
}

/* 16 hexadecimal digits that another process cannot easily guess. */
static void kfifo__block_random_name(char *name, size_t cap)
{
	static unsigned long long counter;
	unsigned long long x = 0;
	struct timespec ts;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &x, sizeof(x)) != (ssize_t)sizeof(x))
			x = 0;
		close(fd);
	}
	if (x == 0) { /* no /dev/urandom (a chroot): unique is enough */
		clock_gettime(CLOCK_REALTIME, &ts);
		x = (unsigned long long)ts.tv_nsec ^
		    ((unsigned long long)ts.tv_sec << 30) ^
		    ((unsigned long long)getpid() << 40) ^
		    __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);
		x *= 0x9e3779b97f4a7c15ull;
	}
	snprintf(name, cap, "kfifo_%016llx", x);
}

int kfifo_block_create(struct kfifo_block *block, const char *name,
		       size_t len, unsigned int mode)
{
	char path[KFIFO_BLOCK_NAME_MAX + 2];
	int fd, r;

	kfifo__block_empty(block);
	if (len == 0)
		return -EINVAL;
	for (;;) {
		if (name == NULL)
			kfifo__block_random_name(block->name,
						 sizeof(block->name));
		r = kfifo__block_path(path, name ? name : block->name);
		if (r != 0)
			return r;
		fd = kfifo__shm_open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			      (mode_t)mode);
		if (fd >= 0)
			break;
		if (errno != EEXIST || name != NULL) {
			r = -errno;
			kfifo__block_empty(block);
			return r;
		}
	}
	r = kfifo__block_reserve(fd, len);
	if (r == 0)
		r = kfifo__block_map(block, fd, len);
	close(fd);
	if (r != 0) {
		kfifo__shm_unlink(path);
		kfifo__block_empty(block);
		return r;
	}
	memcpy(block->name, path + 1, strlen(path));
	return 0;
}

int kfifo_block_create_sealed(struct kfifo_block *block, size_t len)
{
#if defined(__linux__) && defined(SYS_memfd_create)
	int fd, r;

	kfifo__block_empty(block);
	if (len == 0)
		return -EINVAL;
	fd = (int)syscall(SYS_memfd_create, "kfifo",
			  MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	r = kfifo__block_reserve(fd, len);
	if (r == 0 && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
						     F_SEAL_SEAL) != 0)
		r = -errno;
	if (r == 0)
		r = kfifo__block_map(block, fd, len);
	if (r != 0) {
		close(fd);
		kfifo__block_empty(block);
		return r;
	}
	block->fd = fd;
	block->sealed = 1;
	return 0;
#else
	(void)len;
	kfifo__block_empty(block);
	return -ENOSYS;
#endif
}

int kfifo_block_open(struct kfifo_block *block, const char *name,
		     size_t min_len)
{
	char path[KFIFO_BLOCK_NAME_MAX + 2];
	size_t len;
	int fd, r;

	kfifo__block_empty(block);
	r = kfifo__block_path(path, name);
	if (r != 0)
		return r;
	fd = kfifo__shm_open(path, O_RDWR | O_CLOEXEC, 0);
	/* glibc says EINVAL for a directory (POSIX lets it); the name is
	 * valid, checked above, so say what it is */
	if (fd < 0)
		return errno == EINVAL ? -EISDIR : -errno;
	r = kfifo__block_size(fd, min_len, &len);
	if (r == 0)
		r = kfifo__block_map(block, fd, len);
	close(fd);
	if (r != 0)
		return r;
	memcpy(block->name, path + 1, strlen(path));
	return 0;
}

/* 1 if @fd cannot shrink: a memfd with F_SEAL_SHRINK.  Anything else
 * (another file, a system without seals) answers EINVAL: 0. */
static int kfifo__fd_sealed(int fd)
{
#if defined(__linux__)
	int seals = fcntl(fd, F_GET_SEALS);

	return seals >= 0 && (seals & F_SEAL_SHRINK) != 0;
#else
	(void)fd;
	return 0;
#endif
}

int kfifo_block_attach_fd(struct kfifo_block *block, int fd, size_t min_len,
			  unsigned int flags)
{
	size_t len;
	int own, r;

	kfifo__block_empty(block);
	if (fd < 0)
		return -EBADF;
	/* the length and the seals of our own duplicate: the sender cannot
	 * swap the file under a descriptor number we checked */
	own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (own < 0)
		return -errno;
	r = kfifo__block_size(own, min_len, &len);
	if (r == 0) {
		block->sealed = kfifo__fd_sealed(own);
		if (!block->sealed && !(flags & KFIFO_BLOCK_TRUST_UNSEALED))
			r = -EPERM;
	}
	if (r == 0)
		r = kfifo__block_map(block, own, len);
	if (r != 0) {
		close(own);
		kfifo__block_empty(block);
		return r;
	}
	block->fd = own;
	return 0;
}

int kfifo_block_is_sealed(const struct kfifo_block *block)
{
	return block->mem != NULL && block->sealed;
}

void kfifo_block_close(struct kfifo_block *block)
{
	if (block->mem != NULL)
		munmap(block->mem, block->len);
	if (block->fd >= 0)
		close(block->fd);
	kfifo__block_empty(block);
}

int kfifo_block_unlink(const char *name)
{
	char path[KFIFO_BLOCK_NAME_MAX + 2];
	int r = kfifo__block_path(path, name);

	if (r != 0)
		return r;
	return kfifo__shm_unlink(path) == 0 ? 0 : -errno;
}
