#ifndef SLOW_DISK_H
#define SLOW_DISK_H

/// Registers a SQLite VFS over "unix-excl" (the VFS the server's journal opens by name)
/// whose file writes and syncs take at least `write_micros` and `sync_micros` longer (like
/// SQLite's own test VFS wrappers), under that name and as the default for every
/// connection this process opens.
/// Returns SQLITE_OK (0) or SQLite's error code.
int slow_disk_register(int write_micros, int sync_micros);

/// Writes and syncs delayed so far, for the benchmark's report.
long long slow_disk_writes(void);
long long slow_disk_syncs(void);
/// Of the writes, those to a write-ahead log (commits; the rest are checkpoints).
long long slow_disk_wal_writes(void);
/// Starts the counts afresh (the measuring window starts).
void slow_disk_reset(void);

/// Registers the same VFS with no delays over SQLite's plain "unix" VFS instead, under the
/// name "unix-excl", as the default: the journal then takes the system's locks at every
/// commit and keeps its WAL index in a shared file, as before the server held its journal
/// to itself (a baseline). Only one of the two registers in a process.
int shared_locks_register(void);

#endif
