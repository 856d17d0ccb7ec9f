#include "PowerCutVFS.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/// One file's contents: as written, and as of its last sync.
typedef struct Entry {
  struct Entry *next;
  char *path;
  unsigned char *data;
  sqlite3_int64 size, capacity;
  unsigned char *synced;
  sqlite3_int64 syncedSize, syncedCapacity;
  /// Cuts so far: a handle opened before the last one is dead.
  unsigned epoch;
  long syncs;
} Entry;

/// An open file: the real one (locks, shared memory) follows this struct in memory.
typedef struct File {
  sqlite3_file base;
  /// NULL for a temporary file (no name), which is passed straight through.
  Entry *entry;
  unsigned epoch;
  sqlite3_file *real;
} File;

static sqlite3_vfs *realVFS;
static Entry *entries;
/// Guards `entries` and every entry's contents (connections on different threads).
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int reserve(unsigned char **bytes, sqlite3_int64 *capacity, sqlite3_int64 size) {
  if (size <= *capacity) return SQLITE_OK;
  sqlite3_int64 grown = *capacity ? *capacity : 4096;
  while (grown < size) grown *= 2;
  unsigned char *moved = realloc(*bytes, (size_t)grown);
  if (!moved) return SQLITE_NOMEM;
  memset(moved + *capacity, 0, (size_t)(grown - *capacity));
  *bytes = moved;
  *capacity = grown;
  return SQLITE_OK;
}

static int isDead(File *file) { return file->epoch != file->entry->epoch; }

static int fileClose(sqlite3_file *handle) {
  File *file = (File *)handle;
  return file->real->pMethods->xClose(file->real);
}

static int fileRead(sqlite3_file *handle, void *buffer, int amount, sqlite3_int64 offset) {
  File *file = (File *)handle;
  if (!file->entry) return file->real->pMethods->xRead(file->real, buffer, amount, offset);
  pthread_mutex_lock(&lock);
  Entry *entry = file->entry;
  sqlite3_int64 available = offset < entry->size ? entry->size - offset : 0;
  if (available > amount) available = amount;
  if (available > 0) memcpy(buffer, entry->data + offset, (size_t)available);
  pthread_mutex_unlock(&lock);
  if (available == amount) return SQLITE_OK;
  memset((char *)buffer + available, 0, (size_t)(amount - available));
  return SQLITE_IOERR_SHORT_READ;
}

static int fileWrite(sqlite3_file *handle, const void *bytes, int amount, sqlite3_int64 offset) {
  File *file = (File *)handle;
  if (!file->entry) return file->real->pMethods->xWrite(file->real, bytes, amount, offset);
  pthread_mutex_lock(&lock);
  Entry *entry = file->entry;
  int code = isDead(file) ? SQLITE_IOERR_WRITE : reserve(&entry->data, &entry->capacity, offset + amount);
  if (code == SQLITE_OK) {
    if (offset > entry->size) memset(entry->data + entry->size, 0, (size_t)(offset - entry->size));
    memcpy(entry->data + offset, bytes, (size_t)amount);
    if (offset + amount > entry->size) entry->size = offset + amount;
  }
  pthread_mutex_unlock(&lock);
  return code;
}

static int fileTruncate(sqlite3_file *handle, sqlite3_int64 size) {
  File *file = (File *)handle;
  if (!file->entry) return file->real->pMethods->xTruncate(file->real, size);
  pthread_mutex_lock(&lock);
  int code = isDead(file) ? SQLITE_IOERR_TRUNCATE : SQLITE_OK;
  if (code == SQLITE_OK && size < file->entry->size) file->entry->size = size;
  pthread_mutex_unlock(&lock);
  return code;
}

/// What the program wrote is now what the disk holds.
static int fileSync(sqlite3_file *handle, int flags) {
  File *file = (File *)handle;
  if (!file->entry) return file->real->pMethods->xSync(file->real, flags);
  pthread_mutex_lock(&lock);
  Entry *entry = file->entry;
  int code = isDead(file) ? SQLITE_IOERR_FSYNC
                          : reserve(&entry->synced, &entry->syncedCapacity, entry->size);
  if (code == SQLITE_OK) {
    memcpy(entry->synced, entry->data, (size_t)entry->size);
    entry->syncedSize = entry->size;
    entry->syncs += 1;
  }
  pthread_mutex_unlock(&lock);
  return code;
}

static int fileSize(sqlite3_file *handle, sqlite3_int64 *size) {
  File *file = (File *)handle;
  if (!file->entry) return file->real->pMethods->xFileSize(file->real, size);
  pthread_mutex_lock(&lock);
  *size = file->entry->size;
  pthread_mutex_unlock(&lock);
  return SQLITE_OK;
}

static int fileLock(sqlite3_file *handle, int level) {
  File *file = (File *)handle;
  return file->real->pMethods->xLock(file->real, level);
}

static int fileUnlock(sqlite3_file *handle, int level) {
  File *file = (File *)handle;
  return file->real->pMethods->xUnlock(file->real, level);
}

static int fileCheckReservedLock(sqlite3_file *handle, int *reserved) {
  File *file = (File *)handle;
  return file->real->pMethods->xCheckReservedLock(file->real, reserved);
}

static int fileControl(sqlite3_file *handle, int operation, void *argument) {
  File *file = (File *)handle;
  // A size hint would grow the real file, which holds nothing here.
  if (file->entry && operation == SQLITE_FCNTL_SIZE_HINT) return SQLITE_OK;
  return file->real->pMethods->xFileControl(file->real, operation, argument);
}

static int fileSectorSize(sqlite3_file *handle) {
  File *file = (File *)handle;
  return file->real->pMethods->xSectorSize(file->real);
}

static int fileDeviceCharacteristics(sqlite3_file *handle) {
  File *file = (File *)handle;
  return file->real->pMethods->xDeviceCharacteristics(file->real);
}

static int fileShmMap(sqlite3_file *handle, int region, int size, int extend, void volatile **memory) {
  File *file = (File *)handle;
  return file->real->pMethods->xShmMap(file->real, region, size, extend, memory);
}

static int fileShmLock(sqlite3_file *handle, int offset, int count, int flags) {
  File *file = (File *)handle;
  return file->real->pMethods->xShmLock(file->real, offset, count, flags);
}

static void fileShmBarrier(sqlite3_file *handle) {
  File *file = (File *)handle;
  file->real->pMethods->xShmBarrier(file->real);
}

static int fileShmUnmap(sqlite3_file *handle, int deleteFlag) {
  File *file = (File *)handle;
  return file->real->pMethods->xShmUnmap(file->real, deleteFlag);
}

static const sqlite3_io_methods methods = {
    2, fileClose, fileRead, fileWrite, fileTruncate, fileSync, fileSize, fileLock, fileUnlock,
    fileCheckReservedLock, fileControl, fileSectorSize, fileDeviceCharacteristics, fileShmMap,
    fileShmLock, fileShmBarrier, fileShmUnmap,
};

/// The entry for `path`, made from the real file's contents the first time.
static Entry *entryFor(const char *path, sqlite3_file *real) {
  for (Entry *entry = entries; entry; entry = entry->next) {
    if (strcmp(entry->path, path) == 0) return entry;
  }
  Entry *entry = calloc(1, sizeof(Entry));
  sqlite3_int64 size = 0;
  if (!entry || !(entry->path = strdup(path)) || real->pMethods->xFileSize(real, &size) != SQLITE_OK
      || reserve(&entry->data, &entry->capacity, size) != SQLITE_OK
      || reserve(&entry->synced, &entry->syncedCapacity, size) != SQLITE_OK
      || (size > 0 && real->pMethods->xRead(real, entry->data, (int)size, 0) != SQLITE_OK)) {
    if (entry) {
      free(entry->path);
      free(entry->data);
      free(entry->synced);
    }
    free(entry);
    return NULL;
  }
  memcpy(entry->synced, entry->data, (size_t)size);
  entry->size = entry->syncedSize = size;
  entry->next = entries;
  entries = entry;
  return entry;
}

static int vfsOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *handle, int flags, int *outFlags) {
  File *file = (File *)handle;
  memset(file, 0, sizeof(File));
  file->real = (sqlite3_file *)(file + 1);
  int code = realVFS->xOpen(realVFS, name, file->real, flags, outFlags);
  if (code != SQLITE_OK) return code;
  if (name) {
    pthread_mutex_lock(&lock);
    file->entry = entryFor(name, file->real);
    if (file->entry) file->epoch = file->entry->epoch;
    pthread_mutex_unlock(&lock);
    if (!file->entry) {
      file->real->pMethods->xClose(file->real);
      return SQLITE_NOMEM;
    }
  }
  file->base.pMethods = &methods;
  return SQLITE_OK;
}

static int vfsDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
  pthread_mutex_lock(&lock);
  // Forgotten, not freed: a dead handle may still point at it.
  for (Entry **link = &entries; *link; link = &(*link)->next) {
    if (strcmp((*link)->path, name) == 0) {
      *link = (*link)->next;
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  return realVFS->xDelete(realVFS, name, syncDirectory);
}

static int vfsAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
  return realVFS->xAccess(realVFS, name, flags, result);
}

static int vfsFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
  return realVFS->xFullPathname(realVFS, name, size, out);
}

static void *vfsDlOpen(sqlite3_vfs *vfs, const char *name) { return realVFS->xDlOpen(realVFS, name); }

static void vfsDlError(sqlite3_vfs *vfs, int size, char *message) {
  realVFS->xDlError(realVFS, size, message);
}

static void (*vfsDlSym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
  return realVFS->xDlSym(realVFS, library, symbol);
}

static void vfsDlClose(sqlite3_vfs *vfs, void *library) { realVFS->xDlClose(realVFS, library); }

static int vfsRandomness(sqlite3_vfs *vfs, int size, char *out) {
  return realVFS->xRandomness(realVFS, size, out);
}

static int vfsSleep(sqlite3_vfs *vfs, int micros) { return realVFS->xSleep(realVFS, micros); }

static int vfsCurrentTime(sqlite3_vfs *vfs, double *now) { return realVFS->xCurrentTime(realVFS, now); }

static int vfsGetLastError(sqlite3_vfs *vfs, int size, char *out) {
  return realVFS->xGetLastError(realVFS, size, out);
}

static int vfsCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
  return realVFS->xCurrentTimeInt64(realVFS, now);
}

static sqlite3_vfs powerCut = {
    2, 0, 0, NULL, "powercut", NULL, vfsOpen, vfsDelete, vfsAccess, vfsFullPathname, vfsDlOpen,
    vfsDlError, vfsDlSym, vfsDlClose, vfsRandomness, vfsSleep, vfsCurrentTime, vfsGetLastError,
    vfsCurrentTimeInt64,
};

int powercut_register(void) {
  pthread_mutex_lock(&lock);
  int code = SQLITE_OK;
  if (!realVFS) {
    sqlite3_vfs *found = sqlite3_vfs_find(NULL);
    if (!found) {
      code = SQLITE_ERROR;
    } else {
      powerCut.szOsFile = (int)sizeof(File) + found->szOsFile;
      powerCut.mxPathname = found->mxPathname;
      realVFS = found;
      code = sqlite3_vfs_register(&powerCut, 0);
    }
  }
  pthread_mutex_unlock(&lock);
  return code;
}

void powercut_cut(const char *prefix) {
  pthread_mutex_lock(&lock);
  for (Entry *entry = entries; entry; entry = entry->next) {
    if (strncmp(entry->path, prefix, strlen(prefix)) != 0) continue;
    // The capacity of `data` is at least that of anything synced from it.
    memcpy(entry->data, entry->synced, (size_t)entry->syncedSize);
    entry->size = entry->syncedSize;
    entry->epoch += 1;
  }
  pthread_mutex_unlock(&lock);
}

long powercut_syncs(const char *prefix) {
  long syncs = 0;
  pthread_mutex_lock(&lock);
  for (Entry *entry = entries; entry; entry = entry->next) {
    if (strncmp(entry->path, prefix, strlen(prefix)) == 0) syncs += entry->syncs;
  }
  pthread_mutex_unlock(&lock);
  return syncs;
}
