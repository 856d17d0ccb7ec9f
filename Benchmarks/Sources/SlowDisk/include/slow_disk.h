#ifndef SLOW_DISK_H
#define SLOW_DISK_H

/// Registers "slowdisk", a SQLite VFS over the default one whose file writes and syncs
/// take at least `write_micros` and `sync_micros` longer (like SQLite's own test VFS
/// wrappers), and makes it the default for every connection this process opens.
/// Returns SQLITE_OK (0) or SQLite's error code.
int slow_disk_register(int write_micros, int sync_micros);

/// Writes and syncs delayed so far, for the benchmark's report.
long long slow_disk_writes(void);
long long slow_disk_syncs(void);
/// Of the writes, those to a write-ahead log (commits; the rest are checkpoints).
long long slow_disk_wal_writes(void);
/// Starts the counts afresh (the measuring window starts).
void slow_disk_reset(void);

#endif
