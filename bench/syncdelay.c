/* An LD_PRELOAD shim for `python -m bench --only sdcard`: every fsync() and fdatasync() of the process
 * runs for real, then waits BORNES_SYNC_DELAY_US more microseconds, as a slow SD card would make it.
 * It also counts the calls (bornes_syncs) and the nanoseconds spent in them, real sync and delay and
 * any oversleep of a loaded machine (bornes_sync_ns), read by the bench through ctypes, so it can say
 * how many syncs stood between a tap and its chirp and what they cost. Built with gcc by
 * bench/sdcard.py; not installed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>

long bornes_syncs = 0;
long bornes_sync_ns = 0;

static long delay_us = -1;
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);

static long now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000000000L + now.tv_nsec;
}

static void slow_card(long started) {
    if (delay_us < 0) {
        const char *text = getenv("BORNES_SYNC_DELAY_US");
        delay_us = text ? atol(text) : 0;
    }
    __atomic_add_fetch(&bornes_syncs, 1, __ATOMIC_SEQ_CST);
    if (delay_us > 0) {
        struct timespec left = {delay_us / 1000000, (delay_us % 1000000) * 1000};
        int saved = errno;
        while (nanosleep(&left, &left) == -1 && errno == EINTR) {
        }
        errno = saved;
    }
    __atomic_add_fetch(&bornes_sync_ns, now_ns() - started, __ATOMIC_SEQ_CST);
}

int fsync(int fd) {
    if (!real_fsync) real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    long started = now_ns();
    int result = real_fsync(fd);
    slow_card(started);
    return result;
}

int fdatasync(int fd) {
    if (!real_fdatasync) real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    long started = now_ns();
    int result = real_fdatasync(fd);
    slow_card(started);
    return result;
}
