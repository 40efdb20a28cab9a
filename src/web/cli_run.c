/* SPDX-License-Identifier: MIT */
/*
 * cli_run.c: run this very program as `trainplan COMMAND --json FLAGS...`
 * in a child process and collect what it prints.
 *
 * Why a child process for /api/search and /api/plan: their JSON is built
 * inside the commands (src/cli/cmd_search.c, ...), so running the command
 * is the only way to give exactly the CLI's answer without a second copy of
 * it. It also bounds them: a search over a huge space is killed after a
 * deadline, its output is capped, and a crash in it cannot take the server
 * down. /api/estimate stays in-process (it must answer in well under 1 ms).
 *
 * Mechanics: posix_spawn of /proc/self/exe (the same binary, so the same
 * commands), no shell, argv built by request.c from validated flag names;
 * stdin is /dev/null; the child gets the default signal mask and SIGPIPE
 * disposition back (the server blocks and ignores some). Pipes are created
 * and marked close-on-exec under a mutex, so that a child spawned by
 * another worker at the same moment cannot inherit them.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "web.h"

extern char **environ;

static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;

static double now_s(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cloexec_pipe(int fds[2])
{
    if (pipe(fds) != 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        int fl = fcntl(fds[i], F_GETFD);
        if (fl < 0 || fcntl(fds[i], F_SETFD, fl | FD_CLOEXEC) != 0) {
            close(fds[0]);
            close(fds[1]);
            return -1;
        }
    }
    return 0;
}

typedef struct buf {
    char *data;
    size_t len, cap;
} buf;

/* Append n bytes; -1 when it would pass max or memory runs out. */
static int buf_add(buf *b, const char *p, size_t n, size_t max)
{
    if (b->len + n > max)
        return -1;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 8192;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *d = realloc(b->data, cap);
        if (!d)
            return -1;
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

static pid_t spawn_child(char *const argv[], int out_fd, int err_fd)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    pid_t pid = -1;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return -1;
    if (posix_spawnattr_init(&at) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return -1;
    }
    sigset_t none, def;
    sigemptyset(&none);
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    sigaddset(&def, SIGHUP);
    if (posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) == 0 &&
        posix_spawn_file_actions_adddup2(&fa, out_fd, 1) == 0 &&
        posix_spawn_file_actions_adddup2(&fa, err_fd, 2) == 0 &&
        posix_spawnattr_setsigmask(&at, &none) == 0 &&
        posix_spawnattr_setsigdefault(&at, &def) == 0 &&
        posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) == 0) {
        if (posix_spawn(&pid, "/proc/self/exe", &fa, &at, argv, environ) != 0)
            pid = -1;
    }
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

int tp_web_run_cli(char *const argv[], double timeout_s, size_t max_bytes, tp_web_run *r)
{
    memset(r, 0, sizeof *r);
    r->exit_code = -1;
    int po[2], pe[2];
    if (pthread_mutex_lock(&spawn_lock) != 0)
        return -1;
    pid_t pid = -1;
    if (cloexec_pipe(po) == 0) {
        if (cloexec_pipe(pe) == 0) {
            pid = spawn_child(argv, po[1], pe[1]);
            close(pe[1]);
            if (pid < 0)
                close(pe[0]);
        }
        close(po[1]);
        if (pid < 0)
            close(po[0]);
    }
    pthread_mutex_unlock(&spawn_lock);
    if (pid < 0)
        return -1;

    buf out = {0}, err = {0};
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    int open_fds = 2;
    double deadline = now_s() + timeout_s;
    bool killed = false;
    char chunk[16384];
    while (open_fds > 0) {
        double left = deadline - now_s();
        if (left <= 0.0) {
            r->timed_out = true;
            break;
        }
        int n = poll(fds, 2, (int)(left * 1000.0) + 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t got = read(fds[i].fd, chunk, sizeof chunk);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
                continue;
            }
            if (buf_add(i == 0 ? &out : &err, chunk, (size_t)got, max_bytes) != 0) {
                r->too_big = true;
                open_fds = 0;
                break;
            }
        }
    }
    if (r->timed_out || r->too_big) {
        kill(pid, SIGKILL);
        killed = true;
    }
    for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0)
            close(fds[i].fd);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!killed && WIFEXITED(status))
        r->exit_code = WEXITSTATUS(status);
    r->out = out.data;
    r->out_len = out.len;
    r->err = err.data;
    r->err_len = err.len;
    return 0;
}

void tp_web_run_free(tp_web_run *r)
{
    if (!r)
        return;
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}
