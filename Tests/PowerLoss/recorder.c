// The power-loss recorder: an LD_PRELOAD library that logs, in one total order, every write to
// the files under POWERLOSS_DIR, every sync of them, and every write to standard output (the
// workload's ACK lines), into the file named by POWERLOSS_LOG. Tests/ReliabilityTests/PowerLossLog
// reads the log; docs/reliability.md ("Power loss") describes the model.
//
// Log format, little-endian, one record after another:
//   u32 kind, u32 file, u64 offset, u64 length, u64 covers, then `length` payload bytes
//   (none when kind is WRITE_ZEROS, SYNC, SYNC_RANGE or TRUNCATE).
// kind NAME gives `file` its path relative to POWERLOSS_DIR (payload). A SYNC of `file` makes
// every write of that file with a record index below `covers` durable (the index at which the
// sync began: writes that raced with it are not covered). SYNC_RANGE makes the record with index
// `covers` durable (a write through an O_DSYNC or O_SYNC descriptor, once it returned).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum { K_NAME = 1, K_WRITE = 2, K_WRITE_ZEROS = 3, K_SYNC = 4, K_SYNC_RANGE = 5, K_TRUNCATE = 6,
       K_MARKER = 7, K_MSYNC = 8 };

struct record { uint32_t kind, file; uint64_t offset, length, covers; };

#define MAX_FDS 4096
#define MAX_FILES 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -1;
static char dir[PATH_MAX];
static size_t dir_length;
static int fd_file[MAX_FDS];       // file id + 1, 0 when the descriptor is not recorded
static unsigned char fd_dsync[MAX_FDS];
static char *file_names[MAX_FILES];
static int file_count;
static uint64_t next_index;        // the index the next record gets
static int initialized;

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off64_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_pwritev)(int, const struct iovec *, int, off_t);
static ssize_t (*real_pwritev64)(int, const struct iovec *, int, off64_t);
static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_open_2)(const char *, int);
static int (*real_open64_2)(const char *, int);
static int (*real_close)(int);
static int (*real_dup)(int);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_msync)(void *, size_t, int);
static int (*real_ftruncate)(int, off_t);
static int (*real_ftruncate64)(int, off64_t);

static void resolve(void) {
    if (real_write) return;
    real_pwrite = dlsym(RTLD_NEXT, "pwrite");
    real_pwrite64 = dlsym(RTLD_NEXT, "pwrite64");
    real_writev = dlsym(RTLD_NEXT, "writev");
    real_pwritev = dlsym(RTLD_NEXT, "pwritev");
    real_pwritev64 = dlsym(RTLD_NEXT, "pwritev64");
    real_open = dlsym(RTLD_NEXT, "open");
    real_open64 = dlsym(RTLD_NEXT, "open64");
    real_openat = dlsym(RTLD_NEXT, "openat");
    real_openat64 = dlsym(RTLD_NEXT, "openat64");
    real_open_2 = dlsym(RTLD_NEXT, "__open_2");
    real_open64_2 = dlsym(RTLD_NEXT, "__open64_2");
    real_close = dlsym(RTLD_NEXT, "close");
    real_dup = dlsym(RTLD_NEXT, "dup");
    real_dup2 = dlsym(RTLD_NEXT, "dup2");
    real_dup3 = dlsym(RTLD_NEXT, "dup3");
    real_fsync = dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
    real_msync = dlsym(RTLD_NEXT, "msync");
    real_ftruncate = dlsym(RTLD_NEXT, "ftruncate");
    real_ftruncate64 = dlsym(RTLD_NEXT, "ftruncate64");
    real_write = dlsym(RTLD_NEXT, "write");
}

// Writes all of `length` bytes to the log; a failure ends the process, since a log with a hole
// would make every image built from it wrong.
static void log_bytes(const void *bytes, size_t length) {
    const char *p = bytes;
    while (length > 0) {
        ssize_t n = real_write(log_fd, p, length);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) { static const char m[] = "powerloss recorder: writing the log failed\n";
                      real_write(2, m, sizeof m - 1); _exit(70); }
        p += n; length -= (size_t)n;
    }
}

// Appends one record (the lock is held); returns its index.
static uint64_t append(uint32_t kind, uint32_t file, uint64_t offset, uint64_t length, uint64_t covers,
                       const void *payload, size_t payload_length) {
    struct record r = { kind, file, offset, length, covers };
    log_bytes(&r, sizeof r);
    if (payload_length) log_bytes(payload, payload_length);
    return next_index++;
}

__attribute__((constructor)) static void start(void) {
    resolve();
    const char *log_path = getenv("POWERLOSS_LOG"), *d = getenv("POWERLOSS_DIR");
    if (!log_path || !d || strlen(d) + 2 >= sizeof dir) return;
    int saved = errno;
    log_fd = real_open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    errno = saved;
    if (log_fd < 0) return;
    strcpy(dir, d);
    dir_length = strlen(dir);
    while (dir_length > 1 && dir[dir_length - 1] == '/') dir[--dir_length] = 0;
    initialized = 1;
}

static int is_zero(const void *bytes, size_t length) {
    const unsigned char *p = bytes;
    for (size_t i = 0; i < length; i++) if (p[i]) return 0;
    return 1;
}

// The file id of `relative`, registering it (the lock is held).
static int file_id(const char *relative) {
    for (int i = 0; i < file_count; i++) if (strcmp(file_names[i], relative) == 0) return i;
    if (file_count == MAX_FILES) return -1;
    file_names[file_count] = strdup(relative);
    append(K_NAME, (uint32_t)file_count, 0, strlen(relative), 0, relative, strlen(relative));
    return file_count++;
}

// After a successful open: records `fd` when its file lies inside POWERLOSS_DIR.
static void opened(int fd, int flags) {
    if (!initialized || fd < 0 || fd >= MAX_FDS) return;
    int saved = errno;
    char link[64], target[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    pthread_mutex_lock(&lock);
    __atomic_store_n(&fd_file[fd], 0, __ATOMIC_RELEASE);
    if (n > 0) {
        target[n] = 0;
        if ((size_t)n > dir_length + 1 && strncmp(target, dir, dir_length) == 0 && target[dir_length] == '/') {
            int id = file_id(target + dir_length + 1);
            if (id >= 0) {
                fd_dsync[fd] = (flags & (O_DSYNC | O_SYNC)) != 0;
                __atomic_store_n(&fd_file[fd], id + 1, __ATOMIC_RELEASE);
            }
        }
    }
    pthread_mutex_unlock(&lock);
    errno = saved;
}

// Read without the lock (the lock is taken only for recorded descriptors), so the table's entries
// are read and written atomically.
static int tracked(int fd) {
    return initialized && fd >= 0 && fd < MAX_FDS && __atomic_load_n(&fd_file[fd], __ATOMIC_ACQUIRE);
}

// Records a completed write of `done` bytes at `offset` from `iov` (the lock is held).
static void record_write(int fd, off64_t offset, const struct iovec *iov, int count, size_t done) {
    uint32_t file = (uint32_t)fd_file[fd] - 1;
    int zeros = 1;
    size_t left = done;
    for (int i = 0; i < count && left; i++) {
        size_t n = iov[i].iov_len < left ? iov[i].iov_len : left;
        if (!is_zero(iov[i].iov_base, n)) { zeros = 0; break; }
        left -= n;
    }
    uint64_t index;
    if (zeros) {
        index = append(K_WRITE_ZEROS, file, (uint64_t)offset, done, 0, NULL, 0);
    } else {
        struct record r = { K_WRITE, file, (uint64_t)offset, done, 0 };
        log_bytes(&r, sizeof r);
        left = done;
        for (int i = 0; i < count && left; i++) {
            size_t n = iov[i].iov_len < left ? iov[i].iov_len : left;
            log_bytes(iov[i].iov_base, n);
            left -= n;
        }
        index = next_index++;
    }
    if (fd_dsync[fd]) append(K_SYNC_RANGE, file, (uint64_t)offset, done, index, NULL, 0);
}

// Every recorded write runs under the lock, so its place in the log is its place among all
// recorded calls; `positioned` is 0 for write/writev, which write at the descriptor's position.
static ssize_t recorded_vector(int fd, const struct iovec *iov, int count, off64_t offset, int positioned) {
    pthread_mutex_lock(&lock);
    off64_t at = positioned ? offset : lseek64(fd, 0, SEEK_CUR);
    ssize_t n;
    if (positioned) n = real_pwritev64 ? real_pwritev64(fd, iov, count, offset) : real_pwritev(fd, iov, count, (off_t)offset);
    else n = real_writev(fd, iov, count);
    int saved = errno;
    if (n > 0 && at >= 0) record_write(fd, at, iov, count, (size_t)n);
    pthread_mutex_unlock(&lock);
    errno = saved;
    return n;
}

static void marker(const void *bytes, size_t length) {
    pthread_mutex_lock(&lock);
    append(K_MARKER, 0, 0, length, 0, bytes, length);
    pthread_mutex_unlock(&lock);
}

ssize_t write(int fd, const void *bytes, size_t length) {
    resolve();
    if (tracked(fd)) {
        struct iovec v = { (void *)bytes, length };
        return recorded_vector(fd, &v, 1, 0, 0);
    }
    ssize_t n = real_write(fd, bytes, length);
    if (initialized && fd == 1 && n > 0) { int saved = errno; marker(bytes, (size_t)n); errno = saved; }
    return n;
}

ssize_t pwrite(int fd, const void *bytes, size_t length, off_t offset) {
    resolve();
    if (!tracked(fd)) return real_pwrite(fd, bytes, length, offset);
    struct iovec v = { (void *)bytes, length };
    return recorded_vector(fd, &v, 1, offset, 1);
}

ssize_t pwrite64(int fd, const void *bytes, size_t length, off64_t offset) {
    resolve();
    if (!tracked(fd)) return real_pwrite64(fd, bytes, length, offset);
    struct iovec v = { (void *)bytes, length };
    return recorded_vector(fd, &v, 1, offset, 1);
}

ssize_t writev(int fd, const struct iovec *iov, int count) {
    resolve();
    if (!tracked(fd)) {
        ssize_t n = real_writev(fd, iov, count);
        if (initialized && fd == 1 && n > 0) {
            int saved = errno;
            size_t left = (size_t)n;
            for (int i = 0; i < count && left; i++) {
                size_t k = iov[i].iov_len < left ? iov[i].iov_len : left;
                marker(iov[i].iov_base, k);
                left -= k;
            }
            errno = saved;
        }
        return n;
    }
    return recorded_vector(fd, iov, count, 0, 0);
}

ssize_t pwritev(int fd, const struct iovec *iov, int count, off_t offset) {
    resolve();
    if (!tracked(fd)) return real_pwritev(fd, iov, count, offset);
    return recorded_vector(fd, iov, count, offset, 1);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int count, off64_t offset) {
    resolve();
    if (!tracked(fd)) return real_pwritev64(fd, iov, count, offset);
    return recorded_vector(fd, iov, count, offset, 1);
}

// A sync covers the writes logged before it began; it is logged when it returns.
static int recorded_sync(int fd, int (*call)(int)) {
    resolve();
    if (!tracked(fd)) return call(fd);
    pthread_mutex_lock(&lock);
    uint64_t began = next_index;
    pthread_mutex_unlock(&lock);
    int rc = call(fd);
    int saved = errno;
    if (rc == 0) {
        pthread_mutex_lock(&lock);
        append(K_SYNC, (uint32_t)fd_file[fd] - 1, 0, 0, began, NULL, 0);
        pthread_mutex_unlock(&lock);
    }
    errno = saved;
    return rc;
}

int fsync(int fd) { resolve(); return recorded_sync(fd, real_fsync); }
int fdatasync(int fd) { resolve(); return recorded_sync(fd, real_fdatasync); }

int msync(void *address, size_t length, int flags) {
    resolve();
    int rc = real_msync(address, length, flags);
    if (initialized && rc == 0) {
        int saved = errno;
        pthread_mutex_lock(&lock);
        append(K_MSYNC, 0, (uint64_t)(uintptr_t)address, length, 0, NULL, 0);
        pthread_mutex_unlock(&lock);
        errno = saved;
    }
    return rc;
}

static int recorded_truncate(int fd, off64_t length, int wide) {
    resolve();
    if (!tracked(fd)) return wide ? real_ftruncate64(fd, length) : real_ftruncate(fd, (off_t)length);
    pthread_mutex_lock(&lock);
    int rc = wide ? real_ftruncate64(fd, length) : real_ftruncate(fd, (off_t)length);
    int saved = errno;
    if (rc == 0) append(K_TRUNCATE, (uint32_t)fd_file[fd] - 1, (uint64_t)length, 0, 0, NULL, 0);
    pthread_mutex_unlock(&lock);
    errno = saved;
    return rc;
}

int ftruncate(int fd, off_t length) { return recorded_truncate(fd, length, 0); }
int ftruncate64(int fd, off64_t length) { return recorded_truncate(fd, length, 1); }

static mode_t mode_of(int flags, va_list arguments) {
    return (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE ? (mode_t)va_arg(arguments, int) : 0;
}

int open(const char *path, int flags, ...) {
    resolve();
    va_list a; va_start(a, flags); mode_t mode = mode_of(flags, a); va_end(a);
    int fd = real_open(path, flags, mode);
    opened(fd, flags);
    return fd;
}

int open64(const char *path, int flags, ...) {
    resolve();
    va_list a; va_start(a, flags); mode_t mode = mode_of(flags, a); va_end(a);
    int fd = real_open64(path, flags, mode);
    opened(fd, flags);
    return fd;
}

int openat(int at, const char *path, int flags, ...) {
    resolve();
    va_list a; va_start(a, flags); mode_t mode = mode_of(flags, a); va_end(a);
    int fd = real_openat(at, path, flags, mode);
    opened(fd, flags);
    return fd;
}

int openat64(int at, const char *path, int flags, ...) {
    resolve();
    va_list a; va_start(a, flags); mode_t mode = mode_of(flags, a); va_end(a);
    int fd = real_openat64(at, path, flags, mode);
    opened(fd, flags);
    return fd;
}

int __open_2(const char *path, int flags) {
    resolve();
    int fd = real_open_2(path, flags);
    opened(fd, flags);
    return fd;
}

int __open64_2(const char *path, int flags) {
    resolve();
    int fd = real_open64_2(path, flags);
    opened(fd, flags);
    return fd;
}

static void forget(int fd) {
    if (!initialized || fd < 0 || fd >= MAX_FDS) return;
    pthread_mutex_lock(&lock);
    __atomic_store_n(&fd_file[fd], 0, __ATOMIC_RELEASE);
    fd_dsync[fd] = 0;
    pthread_mutex_unlock(&lock);
}

static void copied(int from, int to) {
    if (!initialized || from < 0 || from >= MAX_FDS || to < 0 || to >= MAX_FDS) return;
    pthread_mutex_lock(&lock);
    fd_dsync[to] = fd_dsync[from];
    __atomic_store_n(&fd_file[to], fd_file[from], __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}

int close(int fd) {
    resolve();
    forget(fd);
    return real_close(fd);
}

int dup(int fd) {
    resolve();
    int copy = real_dup(fd);
    if (copy >= 0) copied(fd, copy);
    return copy;
}

int dup2(int fd, int to) {
    resolve();
    int copy = real_dup2(fd, to);
    if (copy >= 0) copied(fd, copy);
    return copy;
}

int dup3(int fd, int to, int flags) {
    resolve();
    int copy = real_dup3(fd, to, flags);
    if (copy >= 0) copied(fd, copy);
    return copy;
}
