// An LD_PRELOAD library for the reliability tests: once the file DATASTORE_FAIL_META_WRITE names
// exists, the next write to a meta page of a data.mdb (an offset below two pages) fails with EIO,
// and the file is removed, so exactly one write fails. LMDB writes its meta page last in a commit,
// after the data pages: this is a disk error at the one moment a commit may or may not have landed
// (Tests/ReliabilityTests/CommitOutcomeTests.swift).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int names_data_file(int fd) {
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, path, sizeof path - 1);
    if (length < 9) return 0;
    path[length] = 0;
    return strcmp(path + length - 9, "/data.mdb") == 0;
}

// Whether this write is the one to fail: removing the trigger claims it, once.
static int fails(int fd, off_t offset) {
    const char *trigger = getenv("DATASTORE_FAIL_META_WRITE");
    if (trigger == NULL || offset >= 2 * sysconf(_SC_PAGESIZE) || !names_data_file(fd)) return 0;
    return unlink(trigger) == 0;
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    static ssize_t (*real)(int, const void *, size_t, off_t);
    if (real == NULL) real = dlsym(RTLD_NEXT, "pwrite");
    if (fails(fd, offset)) { errno = EIO; return -1; }
    return real(fd, buffer, count, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off64_t offset) {
    static ssize_t (*real)(int, const void *, size_t, off64_t);
    if (real == NULL) real = dlsym(RTLD_NEXT, "pwrite64");
    if (fails(fd, offset)) { errno = EIO; return -1; }
    return real(fd, buffer, count, offset);
}
