/* An LD_PRELOAD shim for `python -m bench --only sdcard`: every fsync() and fdatasync() of the process
 * runs for real, then waits BORNES_SYNC_DELAY_US more microseconds, as a slow SD card would make it.
 * It also counts the calls (bornes_syncs, read by the bench through ctypes), so the bench can say how
 * many syncs stood between a tap and its chirp. Built with gcc by bench/sdcard.py; not installed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>

long bornes_syncs = 0;

static long delay_us = -1;
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);

static void slow_card(void) {
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
}

int fsync(int fd) {
    if (!real_fsync) real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    int result = real_fsync(fd);
    slow_card();
    return result;
}

int fdatasync(int fd) {
    if (!real_fdatasync) real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    int result = real_fdatasync(fd);
    slow_card();
    return result;
}
