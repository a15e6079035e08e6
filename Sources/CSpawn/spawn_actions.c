#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "CSpawn.h"

int farm_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int farm_spawn_add_chdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

int farm_pipe_cloexec(int descriptors[2]) {
    return pipe2(descriptors, O_CLOEXEC);
}

int farm_signal_on_parent_death(int signal) {
    return prctl(PR_SET_PDEATHSIG, signal);
}

int farm_syncfs(int descriptor) {
    return syncfs(descriptor);
}

int farm_nice_this_thread(int value) {
    return setpriority(PRIO_PROCESS, (id_t)gettid(), value);
}
