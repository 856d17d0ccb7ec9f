// A SQLite VFS that makes the disk slow on purpose, so the benchmark can show what the
// journal does to the server's tail latency on a slow disk without needing one. It wraps
// the default VFS: every xWrite sleeps write_micros and every xSync sleeps sync_micros
// before doing the real work. Everything else is passed through.
#include "slow_disk.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

static sqlite3_vfs slow_vfs;
static sqlite3_vfs *real_vfs;
static int write_delay;
static int sync_delay;
static atomic_llong writes;
static atomic_llong syncs;
static atomic_llong wal_writes;

/// A file of this VFS: the real file's handle right after our own header.
typedef struct {
  sqlite3_file base;
  sqlite3_file *real;
  int is_wal;
} slow_file;

/// Sleeps `micros` µs, as close to that as the kernel allows: Linux lets a timer of an
/// ordinary thread fire up to 50 µs late (its timer slack), which made a "+60 µs" write
/// take 135 µs at the median here; with a slack of 1 ns it takes about 80 µs (the rest is
/// the wake-up, as a real disk's completion has one too).
static void pause_for(int micros) {
  if (micros <= 0) return;
  static __thread int slack_set;
  if (!slack_set) {
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    slack_set = 1;
  }
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_nsec += (long)micros * 1000;
  until.tv_sec += until.tv_nsec / 1000000000L;
  until.tv_nsec %= 1000000000L;
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR) {}
}

static int slow_close(sqlite3_file *f) {
  slow_file *s = (slow_file *)f;
  int rc = s->real->pMethods ? s->real->pMethods->xClose(s->real) : SQLITE_OK;
  return rc;
}
static int slow_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) {
  slow_file *s = (slow_file *)f;
  return s->real->pMethods->xRead(s->real, b, n, o);
}
static int slow_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) {
  slow_file *s = (slow_file *)f;
  atomic_fetch_add(&writes, 1);
  if (s->is_wal) atomic_fetch_add(&wal_writes, 1);
  pause_for(write_delay);
  return s->real->pMethods->xWrite(s->real, b, n, o);
}
static int slow_truncate(sqlite3_file *f, sqlite3_int64 n) {
  slow_file *s = (slow_file *)f;
  return s->real->pMethods->xTruncate(s->real, n);
}
static int slow_sync(sqlite3_file *f, int flags) {
  slow_file *s = (slow_file *)f;
  atomic_fetch_add(&syncs, 1);
  pause_for(sync_delay);
  return s->real->pMethods->xSync(s->real, flags);
}
static int slow_file_size(sqlite3_file *f, sqlite3_int64 *n) {
  slow_file *s = (slow_file *)f;
  return s->real->pMethods->xFileSize(s->real, n);
}
static int slow_lock(sqlite3_file *f, int l) {
  slow_file *s = (slow_file *)f;
  return s->real->pMethods->xLock(s->real, l);
}
static int slow_unlock(sqlite3_file *f, int l) {
  slow_file *s = (slow_file *)f;
  return s->real->pMethods->xUnlock(s->real, l);
}
static int slow_check_reserved(sqlite3_file *f, int *r) {
  slow_file *s = (slow_file *)f;
  return s->real->pMethods->xCheckReservedLock(s->real, r);
}
static int slow_file_control(sqlite3_file *f, int op, void *a) {
  slow_file *s = (slow_file *)f;
  return s->real->pMethods->xFileControl(s->real, op, a);
}
static int slow_sector_size(sqlite3_file *f) {
  slow_file *s = (slow_file *)f;
  return s->real->pMethods->xSectorSize(s->real);
}
static int slow_device_characteristics(sqlite3_file *f) {
  slow_file *s = (slow_file *)f;
  return s->real->pMethods->xDeviceCharacteristics(s->real);
}
static int slow_shm_map(sqlite3_file *f, int p, int sz, int e, void volatile **pp) {
  slow_file *s = (slow_file *)f;
  return s->real->pMethods->xShmMap(s->real, p, sz, e, pp);
}
static int slow_shm_lock(sqlite3_file *f, int o, int n, int fl) {
  slow_file *s = (slow_file *)f;
  return s->real->pMethods->xShmLock(s->real, o, n, fl);
}
static void slow_shm_barrier(sqlite3_file *f) {
  slow_file *s = (slow_file *)f;
  s->real->pMethods->xShmBarrier(s->real);
}
static int slow_shm_unmap(sqlite3_file *f, int d) {
  slow_file *s = (slow_file *)f;
  return s->real->pMethods->xShmUnmap(s->real, d);
}
static int slow_fetch(sqlite3_file *f, sqlite3_int64 o, int n, void **pp) {
  slow_file *s = (slow_file *)f;
  return s->real->pMethods->xFetch(s->real, o, n, pp);
}
static int slow_unfetch(sqlite3_file *f, sqlite3_int64 o, void *p) {
  slow_file *s = (slow_file *)f;
  return s->real->pMethods->xUnfetch(s->real, o, p);
}

static const sqlite3_io_methods slow_methods = {
  3, slow_close, slow_read, slow_write, slow_truncate, slow_sync, slow_file_size, slow_lock,
  slow_unlock, slow_check_reserved, slow_file_control, slow_sector_size,
  slow_device_characteristics, slow_shm_map, slow_shm_lock, slow_shm_barrier, slow_shm_unmap,
  slow_fetch, slow_unfetch,
};

static int slow_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out) {
  (void)vfs;
  slow_file *s = (slow_file *)f;
  s->real = (sqlite3_file *)(s + 1);
  s->is_wal = (flags & SQLITE_OPEN_WAL) != 0;
  int rc = real_vfs->xOpen(real_vfs, name, s->real, flags, out);
  // SQLite calls xClose only when pMethods is set, so set it only on success.
  f->pMethods = rc == SQLITE_OK ? &slow_methods : NULL;
  return rc;
}

#define PASS(name, ...) real_vfs->name(real_vfs, __VA_ARGS__)
static int slow_delete(sqlite3_vfs *v, const char *n, int d) { (void)v; return PASS(xDelete, n, d); }
static int slow_access(sqlite3_vfs *v, const char *n, int f, int *r) { (void)v; return PASS(xAccess, n, f, r); }
static int slow_full_pathname(sqlite3_vfs *v, const char *n, int l, char *o) { (void)v; return PASS(xFullPathname, n, l, o); }
static void *slow_dl_open(sqlite3_vfs *v, const char *n) { (void)v; return PASS(xDlOpen, n); }
static void slow_dl_error(sqlite3_vfs *v, int n, char *m) { (void)v; PASS(xDlError, n, m); }
static void (*slow_dl_sym(sqlite3_vfs *v, void *h, const char *s))(void) { (void)v; return PASS(xDlSym, h, s); }
static void slow_dl_close(sqlite3_vfs *v, void *h) { (void)v; PASS(xDlClose, h); }
static int slow_randomness(sqlite3_vfs *v, int n, char *o) { (void)v; return PASS(xRandomness, n, o); }
static int slow_sleep(sqlite3_vfs *v, int m) { (void)v; return PASS(xSleep, m); }
static int slow_current_time(sqlite3_vfs *v, double *t) { (void)v; return PASS(xCurrentTime, t); }
static int slow_last_error(sqlite3_vfs *v, int n, char *m) { (void)v; return PASS(xGetLastError, n, m); }
static int slow_current_time_int64(sqlite3_vfs *v, sqlite3_int64 *t) { (void)v; return PASS(xCurrentTimeInt64, t); }

/* Registers the slow VFS over `base`, under the name "unix-excl" (the VFS the server's
 * journal opens by name), as the default: found before the real one. */
static int register_over(const char *base) {
  if (real_vfs) return SQLITE_OK;
  real_vfs = sqlite3_vfs_find(base);
  if (!real_vfs) return SQLITE_ERROR;
  memset(&slow_vfs, 0, sizeof slow_vfs);
  slow_vfs.iVersion = 2;
  slow_vfs.szOsFile = (int)sizeof(slow_file) + real_vfs->szOsFile;
  slow_vfs.mxPathname = real_vfs->mxPathname;
  slow_vfs.zName = "unix-excl";
  slow_vfs.xOpen = slow_open;
  slow_vfs.xDelete = slow_delete;
  slow_vfs.xAccess = slow_access;
  slow_vfs.xFullPathname = slow_full_pathname;
  slow_vfs.xDlOpen = slow_dl_open;
  slow_vfs.xDlError = slow_dl_error;
  slow_vfs.xDlSym = slow_dl_sym;
  slow_vfs.xDlClose = slow_dl_close;
  slow_vfs.xRandomness = slow_randomness;
  slow_vfs.xSleep = slow_sleep;
  slow_vfs.xCurrentTime = slow_current_time;
  slow_vfs.xGetLastError = slow_last_error;
  slow_vfs.xCurrentTimeInt64 = slow_current_time_int64;
  return sqlite3_vfs_register(&slow_vfs, 1);
}

int slow_disk_register(int write_micros, int sync_micros) {
  write_delay = write_micros;
  sync_delay = sync_micros;
  /* The real "unix-excl" opens the files: SQLite gives a file the process's lock when the
   * VFS that opens it is named so. */
  return register_over("unix-excl");
}

/* The plain "unix" VFS opens the files (its name is what SQLite looks at), so a journal
 * that asks for "unix-excl" takes the system's locks at each commit and keeps its WAL
 * index in a shared file, as every server did before it held its journal to itself. */
int shared_locks_register(void) { return register_over("unix"); }

long long slow_disk_writes(void) { return atomic_load(&writes); }
long long slow_disk_syncs(void) { return atomic_load(&syncs); }
long long slow_disk_wal_writes(void) { return atomic_load(&wal_writes); }
void slow_disk_reset(void) {
  atomic_store(&writes, 0);
  atomic_store(&syncs, 0);
  atomic_store(&wal_writes, 0);
}
