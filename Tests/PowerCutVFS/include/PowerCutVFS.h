#ifndef POWER_CUT_VFS_H
#define POWER_CUT_VFS_H

/// A SQLite VFS for tests that models a machine losing power, after SQLite's own crash
/// tests (`test6.c`): open a database with `vfs=powercut` and every write is kept in
/// memory until the file is synced; `powercut_cut` then loses, for the files under a
/// directory, everything written since each one's last sync.
///
/// What it keeps, per file name: the contents as the program sees them (every write,
/// shared by all the connections that have the file open) and the contents as of the
/// file's last `xSync` (what a disk would hold). A cut puts each file back to its
/// synced contents; the connections open at the cut are dead: their writes, truncations
/// and syncs fail (so closing them changes nothing), and the database is reopened, by
/// new connections, from what was synced. The real files under the default VFS exist
/// only for their names, locks and shared memory (the WAL index, which SQLite rebuilds
/// from the WAL when the first connection opens it): nothing written through this VFS
/// reaches them. Creating and deleting a file count at once, as if the directory were
/// synced; a cut loses whole writes, never part of one.

/// Registers the VFS named "powercut" (not as the default); later calls do nothing.
/// Returns SQLite's result code.
int powercut_register(void);

/// Cuts the power to every file whose path begins with `prefix`: see above.
void powercut_cut(const char *prefix);

/// Syncs made so far to files whose path begins with `prefix`.
long powercut_syncs(const char *prefix);

#endif
