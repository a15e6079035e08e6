#ifndef FARM_CSPAWN_H
#define FARM_CSPAWN_H

#include <spawn.h>

/// glibc functions that Swift's Glibc module does not export (they need
/// _GNU_SOURCE, which this file's implementation defines).

/// Closes every descriptor from `from` up in the child.
int farm_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from);

/// Changes the child's working directory to `path`.
int farm_spawn_add_chdir(posix_spawn_file_actions_t *actions, const char *path);

/// pipe2 with O_CLOEXEC: no other child inherits either end while a spawn is prepared.
int farm_pipe_cloexec(int descriptors[2]);

/// prctl(PR_SET_PDEATHSIG): `signal` is sent to this process when its parent ends (prctl is
/// variadic, which Swift cannot call).
int farm_signal_on_parent_death(int signal);

/// syncfs: flushes the whole file system that holds the open `descriptor`.
int farm_syncfs(int descriptor);

/// Lowers the calling thread alone to nice `value` (setpriority with its gettid).
int farm_nice_this_thread(int value);

#endif
