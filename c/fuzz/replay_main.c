/* SPDX-License-Identifier: MIT */
/*
 * replay_main.c - a plain main() for fuzz_ops.c: replays every file named
 * on the command line, or found in a directory named there, through
 * LLVMFuzzerTestOneInput().  Any mismatch aborts.  Exits non-zero if no
 * input was found, so a missing corpus cannot pass silently.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long inputs;
static unsigned long long bytes;

static int replay_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	unsigned char *buf;
	long len;

	if (fp == NULL || fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) < 0) {
		fprintf(stderr, "cannot read %s\n", path);
		if (fp)
			fclose(fp);
		return -1;
	}
	rewind(fp);
	buf = malloc((size_t)len + 1);
	if (buf == NULL || fread(buf, 1, (size_t)len, fp) != (size_t)len) {
		fprintf(stderr, "cannot read %s\n", path);
		free(buf);
		fclose(fp);
		return -1;
	}
	fclose(fp);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	inputs++;
	bytes += (unsigned long long)len;
	return 0;
}

static int replay(const char *path)
{
	struct stat st;
	struct dirent *e;
	DIR *dir;
	int rc = 0;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "no such file or directory: %s\n", path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	dir = opendir(path);
	if (dir == NULL)
		return -1;
	while ((e = readdir(dir)) != NULL) {
		char full[4096];

		if (e->d_name[0] == '.')
			continue;
		snprintf(full, sizeof(full), "%s/%s", path, e->d_name);
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
			rc |= replay_file(full);
	}
	closedir(dir);
	return rc;
}

int main(int argc, char **argv)
{
	int i, rc = 0;

	for (i = 1; i < argc; i++)
		rc |= replay(argv[i]);
	printf("fuzz_replay: %lu inputs, %llu bytes replayed, no mismatch\n",
	       inputs, bytes);
	if (inputs == 0) {
		fprintf(stderr, "fuzz_replay: no input found\n");
		return 1;
	}
	return rc ? 1 : 0;
}
