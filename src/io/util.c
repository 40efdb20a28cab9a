/* SPDX-License-Identifier: MIT */
/*
 * util.c: small helpers shared across src/io and the CLI (io_internal.h):
 * the edit distance behind "did you mean"; tp_io_write_files, the one
 * place trainplan writes a file (atomic, never overwriting without --force,
 * never replacing anything but a regular file); tp_io_read_file, the one
 * place it reads one (regular files only, bounded, never blocking on a
 * FIFO); and tp_io_safe_text, the one way untrusted text reaches a
 * terminal (issue 14).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_internal.h"

size_t tp_io_edit_distance(const char *a, const char *b, bool fold_case)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > TP_IO_EDIT_MAX_LEN || lb > TP_IO_EDIT_MAX_LEN)
        return la > lb ? la : lb;
    size_t row[TP_IO_EDIT_MAX_LEN + 1];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            unsigned char ca = (unsigned char)a[i - 1], cb = (unsigned char)b[j - 1];
            bool same = fold_case ? tolower(ca) == tolower(cb) : ca == cb;
            size_t best = diag + (same ? 0 : 1);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *tp_io_commas(int64_t v, char *buf, size_t n)
{
    char digits[32];
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    snprintf(digits, sizeof digits, "%llu", u);
    size_t len = strlen(digits), o = 0;
    if (v < 0 && o + 1 < n)
        buf[o++] = '-';
    for (size_t i = 0; i < len && o + 1 < n; i++) {
        buf[o++] = digits[i];
        if ((len - 1 - i) % 3 == 0 && i + 1 < len && o + 1 < n)
            buf[o++] = ',';
    }
    buf[o] = '\0';
    return buf;
}

const char *tp_io_plural(double n, const char *one, const char *many)
{
    return n >= 1.0 && n <= 1.0 ? one : many; /* exactly one, as printed */
}

const tp_io_part tp_io_mem_parts[TP_IO_NUM_MEM_PARTS] = {
    {"weights", "weights", offsetof(tp_memory, weights_bytes)},
    {"weights_gathered", "gathered weights (ZeRO-3)", offsetof(tp_memory, weights_gathered_bytes)},
    {"grads", "gradients", offsetof(tp_memory, grads_bytes)},
    {"optimizer", "optimizer state", offsetof(tp_memory, optimizer_bytes)},
    {"activations", "activations", offsetof(tp_memory, activations_bytes)},
    {"logits", "logits", offsetof(tp_memory, logits_bytes)},
    {"comm_buffers", "communication buffers", offsetof(tp_memory, comm_buffers_bytes)},
    {"framework", "CUDA context", offsetof(tp_memory, framework_bytes)},
    {"fragmentation", "allocator reserve", offsetof(tp_memory, fragmentation_bytes)},
};

const tp_io_part tp_io_time_parts[TP_IO_NUM_TIME_PARTS] = {
    {"compute", "compute", offsetof(tp_time, compute_s)},
    {"recompute", "recompute", offsetof(tp_time, recompute_s)},
    {"tp_comm", "TP communication", offsetof(tp_time, tp_comm_s)},
    {"cp_comm", "CP communication", offsetof(tp_time, cp_comm_s)},
    {"ep_comm", "EP communication", offsetof(tp_time, ep_comm_s)},
    {"pp_comm", "PP communication", offsetof(tp_time, pp_comm_s)},
    {"bubble", "pipeline bubble", offsetof(tp_time, bubble_s)},
    {"dp_comm", "DP communication", offsetof(tp_time, dp_comm_s)},
    {"optimizer", "optimizer step", offsetof(tp_time, optimizer_s)},
};

/* ------------------------------------------------------------------ */
/* Files: every file trainplan writes goes through tp_io_write_files    */
/* ------------------------------------------------------------------ */

/*
 * Protocol, per file: mkstemp("FILE.tmp.XXXXXX") in FILE's directory (so
 * the final rename/link never crosses a file system; a name too long for
 * that suffix is shortened in the temporary name), write everything,
 * fsync, close; then link(tmp, FILE) (fails with EEXIST, atomically, if
 * FILE appeared meanwhile) or, with force, rename(tmp, FILE); unlink tmp;
 * fsync the directory so the new name is durable. A reader sees no file
 * or the whole file, never a prefix. SIGINT, SIGTERM, SIGHUP and SIGQUIT
 * are held (blocked) from the first mkstemp to the last rename and
 * delivered afterwards, so an interrupted run leaves neither FILE half
 * written nor a stray FILE.tmp.XXXXXX (SIGKILL and a crash of the machine
 * can still leave a temporary file, never a partial FILE).
 *
 * What may be replaced: only a regular file, or a symbolic link that
 * resolves to one (the link itself is replaced; its target is left as it
 * was). A directory, device, FIFO, socket, or a link to one of them or to
 * nothing is refused before anything is written, with or without force:
 * rename() would replace the directory entry (as root, /dev/null itself).
 * The check and the rename are two steps: a file swapped for a device in
 * between by someone who may write the directory is not detected.
 *
 * Several files (DeepSpeed's FILE and FILE.notes.txt): every temporary
 * file is written before the first one is moved into place, so an error
 * while writing changes nothing. The moves (and the clean-up of a failed
 * run, which unlinks what it linked) happen under an exclusive flock on
 * the directory of the first file, so two trainplan runs that write the
 * same files move theirs one run after the other and never leave FILE
 * from one run and FILE.notes.txt from the other. Two
 * renames are still two steps: a reader between them, SIGKILL or a crash
 * of the machine between them, or a rename that fails (after the checks
 * above, practically only a read-only or full file system) can leave the
 * first file new and the second old. The lock is advisory (it orders
 * trainplan runs, not other programs) and best effort (a file system
 * without flock goes on unlocked).
 */

static tp_status file_error(tp_error *err, const char *what, const char *path, int e)
{
    return tp_error_set(err, TP_ERR_IO, "", "cannot %s %s: %s", what, path, strerror(e));
}

static tp_status exists_error(tp_error *err, const char *path)
{
    return tp_error_set(err, TP_ERR_IO, "", "%s exists (use --force to overwrite it)", path);
}

/* Write all of data to fd (retrying short writes and EINTR); 0 or errno. */
static int write_all(int fd, const char *data, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        off += (size_t)w;
    }
    return 0;
}

/* The directory holding path ("." or "/" at the ends); false when it does not fit. */
static bool dir_of(const char *path, char *dir, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, n, ".");
    else if (slash == path)
        snprintf(dir, n, "/");
    else if ((size_t)(slash - path) < n)
        snprintf(dir, n, "%.*s", (int)(slash - path), path);
    else
        return false;
    return true;
}

/* fsync the directory holding path (best effort: some file systems refuse). */
static void sync_dir(const char *path)
{
    char dir[4096];
    if (!dir_of(path, dir, sizeof dir))
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* Create, fill, fsync and close a temporary file beside path; *tmp is its
 * malloc'd name (NULL on error). */
static tp_status write_temp(const tp_io_file *f, mode_t mode, char **tmp, tp_error *err)
{
    *tmp = NULL;
    static const char suffix[] = ".tmp.XXXXXX";
    const char *slash = strrchr(f->path, '/');
    size_t dir_len = slash ? (size_t)(slash + 1 - f->path) : 0;
    size_t base_len = strlen(f->path + dir_len);
    if (base_len > TP_IO_NAME_MAX - (sizeof suffix - 1))
        base_len = TP_IO_NAME_MAX - (sizeof suffix - 1); /* still beside FILE, still unique */
    size_t n = dir_len + base_len + sizeof suffix;
    char *name = malloc(n);
    if (!name)
        return tp_error_set(err, TP_ERR_NOMEM, "", "out of memory writing %s", f->path);
    snprintf(name, n, "%.*s%s", (int)(dir_len + base_len), f->path, suffix);
    int fd = mkstemp(name);
    if (fd < 0) {
        int e = errno;
        free(name);
        return tp_error_set(err, TP_ERR_IO, "", "cannot create a file beside %s: %s", f->path,
                            strerror(e));
    }
    (void)fchmod(fd, mode); /* as an ordinary new file; mkstemp gives 0600 */
    int e = write_all(fd, f->data, f->len);
    if (!e && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (e) {
        unlink(name);
        free(name);
        return file_error(err, "write", f->path, e);
    }
    *tmp = name;
    return TP_OK;
}

/* err->path for an error about f: its flag without the dashes, or "". */
static const char *flag_of(const tp_io_file *f)
{
    if (!f->flag)
        return "";
    return strncmp(f->flag, "--", 2) == 0 ? f->flag + 2 : f->flag;
}

/*
 * May f be written? Its last component fits in a file name, and what is
 * there now is nothing, or (with force) a regular file or a link to one.
 */
static tp_status check_target(const tp_io_file *f, bool force, tp_error *err)
{
    const char *slash = strrchr(f->path, '/');
    const char *base = slash ? slash + 1 : f->path;
    size_t base_len = strlen(base);
    if (base_len > TP_IO_NAME_MAX) {
        /* the name itself would not fit in the message: its end says which */
        return tp_error_set(err, TP_ERR_INVALID_ARG, flag_of(f),
                            "the file name \"...%s\" is %zu bytes long; a file name has at most "
                            "%d bytes",
                            base + base_len - 24, base_len, TP_IO_NAME_MAX);
    }
    struct stat st;
    if (lstat(f->path, &st) != 0)
        return TP_OK; /* absent (or unreachable: creating it will say why) */
    if (S_ISLNK(st.st_mode)) {
        struct stat to;
        if (stat(f->path, &to) != 0)
            return tp_error_set(err, TP_ERR_IO, flag_of(f),
                                "%s is a symbolic link to nothing (%s); --force replaces "
                                "regular files only",
                                f->path, strerror(errno));
        if (!S_ISREG(to.st_mode))
            return tp_error_set(err, TP_ERR_IO, flag_of(f),
                                "%s is a symbolic link to %s; --force replaces regular files only",
                                f->path, tp_io_file_type(to.st_mode));
    } else if (!S_ISREG(st.st_mode)) {
        return tp_error_set(err, TP_ERR_IO, flag_of(f),
                            "%s is %s; --force replaces regular files only", f->path,
                            tp_io_file_type(st.st_mode));
    }
    if (!force)
        return exists_error(err, f->path);
    return TP_OK;
}

/* An exclusive flock on the directory holding path, or -1 (best effort:
 * some file systems have no flock). Closing the descriptor releases it. */
static int lock_dir(const char *path)
{
    char dir[4096];
    if (!dir_of(path, dir, sizeof dir))
        return -1;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    }
    return fd;
}

tp_status tp_io_write_files(const tp_io_file *files, size_t n, bool force, tp_error *err)
{
    if (n == 0)
        return TP_OK;
    if (n > TP_IO_MAX_FILES)
        return tp_error_set(err, TP_ERR_INTERNAL, "", "tp_io_write_files: too many files");
    for (size_t i = 0; i < n; i++) {
        if (!files[i].path || !files[i].path[0])
            return tp_error_set(err, TP_ERR_INVALID_ARG, "", "empty file name");
        for (size_t j = 0; j < i; j++)
            if (strcmp(files[i].path, files[j].path) == 0)
                return tp_error_set(err, TP_ERR_INVALID_ARG, "", "%s is named twice",
                                    files[i].path);
        tp_status cs = check_target(&files[i], force, err);
        if (cs != TP_OK)
            return cs;
    }

    mode_t um = umask(0);
    umask(um);
    mode_t mode = (mode_t)(0666 & ~um);

    /* Hold the usual termination signals while temporary files exist. */
    sigset_t hold, saved;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigaddset(&hold, SIGHUP);
    sigaddset(&hold, SIGQUIT);
    bool masked = sigprocmask(SIG_BLOCK, &hold, &saved) == 0;

    char *tmp[TP_IO_MAX_FILES] = {0};
    bool placed[TP_IO_MAX_FILES] = {false};
    tp_status st = TP_OK;
    for (size_t i = 0; i < n && st == TP_OK; i++)
        st = write_temp(&files[i], mode, &tmp[i], err);
    int lock_fd = -1;
    if (st == TP_OK && n > 1) /* without force too: its clean-up unlinks */
        lock_fd = lock_dir(files[0].path);
    for (size_t i = 0; i < n && st == TP_OK; i++) {
        if (force) {
            if (rename(tmp[i], files[i].path) != 0)
                st = file_error(err, "write", files[i].path, errno);
        } else if (link(tmp[i], files[i].path) != 0) {
            int e = errno;
            if (e == EEXIST)
                st = exists_error(err, files[i].path);
            else if (e == EPERM || e == ENOTSUP || e == EOPNOTSUPP || e == ENOSYS)
                st = tp_error_set(err, TP_ERR_IO, "",
                                  "cannot create %s without risking an overwrite: the file "
                                  "system has no hard links (%s); use --force to replace by "
                                  "rename",
                                  files[i].path, strerror(e));
            else
                st = file_error(err, "write", files[i].path, e);
        }
        if (st == TP_OK)
            placed[i] = true;
    }
    /* Clean up: every temporary name goes (after a rename it is already
     * gone); on failure, files this call created without force go too. */
    for (size_t i = 0; i < n; i++) {
        if (tmp[i]) {
            if (!(force && placed[i]))
                unlink(tmp[i]);
            free(tmp[i]);
        }
        if (st != TP_OK && placed[i] && !force)
            unlink(files[i].path);
    }
    if (st == TP_OK)
        for (size_t i = 0; i < n; i++)
            sync_dir(files[i].path);
    if (lock_fd >= 0)
        close(lock_fd); /* releases the flock */
    if (masked)
        sigprocmask(SIG_SETMASK, &saved, NULL);
    return st;
}

/* ------------------------------------------------------------------ */
/* Files: every file trainplan reads goes through tp_io_read_file       */
/* ------------------------------------------------------------------ */

const char *tp_io_file_type(unsigned int mode)
{
    if (S_ISREG(mode))
        return "a regular file";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return "of an unknown file type";
}

/* path as messages show it: in double quotes when q. */
#define QP(q) ((q) ? "\"" : "")

/* Read fd to its end, at most max_bytes (one more byte is an error); size_hint
 * is the expected length (st_size), 0 if unknown. */
static tp_status read_fd(int fd, size_t size_hint, const tp_io_read_opts *o, const char *path,
                         char **out, size_t *out_len, tp_error *err)
{
    const char *q = QP(o->quote);
    size_t cap = size_hint > 0 && size_hint <= o->max_bytes ? size_hint + 1 : 64u << 10;
    size_t len = 0;
    char *buf = malloc(cap + 1);
    if (!buf)
        return tp_error_set(err, TP_ERR_NOMEM, o->field, "out of memory reading %s%s%s", q, path,
                            q);
    for (;;) {
        if (len == cap) {
            if (cap > o->max_bytes) {
                free(buf);
                return tp_error_set(err, TP_ERR_IO, o->field,
                                    "cannot read %s%s%s: larger than %zu MiB", q, path, q,
                                    o->max_bytes >> 20);
            }
            size_t bigger = 2 * cap > o->max_bytes + 1 ? o->max_bytes + 1 : 2 * cap;
            char *p = realloc(buf, bigger + 1);
            if (!p) {
                free(buf);
                return tp_error_set(err, TP_ERR_NOMEM, o->field, "out of memory reading %s%s%s", q,
                                    path, q);
            }
            buf = p;
            cap = bigger;
        }
        ssize_t got = read(fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            free(buf);
            return tp_error_set(err, TP_ERR_IO, o->field, "cannot read %s%s%s: %s", q, path, q,
                                strerror(e));
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    if (len > o->max_bytes) {
        free(buf);
        return tp_error_set(err, TP_ERR_IO, o->field, "cannot read %s%s%s: larger than %zu MiB", q,
                            path, q, o->max_bytes >> 20);
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return TP_OK;
}

tp_status tp_io_read_file(const char *path, const tp_io_read_opts *o, char **out, size_t *len,
                          tp_error *err)
{
    *out = NULL;
    *len = 0;
    const char *q = QP(o->quote);
    if (o->allow_stdin && strcmp(path, "-") == 0)
        return read_fd(STDIN_FILENO, 0, o, "standard input", out, len, err);
    /* O_NONBLOCK: opening a FIFO no one writes to must not wait for a
     * writer (it is refused below anyway); O_NOCTTY: a terminal named
     * here does not become our controlling terminal. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return tp_error_set(err, TP_ERR_IO, o->field, "cannot read %s%s%s: %s", q, path, q,
                            strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return tp_error_set(err, TP_ERR_IO, o->field, "cannot read %s%s%s: %s", q, path, q,
                            strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        if (S_ISDIR(st.st_mode)) /* the message read() would have given */
            return tp_error_set(err, TP_ERR_IO, o->field, "cannot read %s%s%s: %s", q, path, q,
                                strerror(EISDIR));
        return tp_error_set(
            err, TP_ERR_IO, o->field, "%s%s%s is %s; trainplan reads regular files only%s", q, path,
            q, tp_io_file_type(st.st_mode), o->allow_stdin ? " (or - for standard input)" : "");
    }
    if ((uintmax_t)st.st_size > o->max_bytes) {
        close(fd);
        return tp_error_set(err, TP_ERR_IO, o->field, "cannot read %s%s%s: larger than %zu MiB", q,
                            path, q, o->max_bytes >> 20);
    }
    /* O_NONBLOCK stays: it has no effect on a regular file's reads. */
    tp_status rs = read_fd(fd, (size_t)st.st_size, o, path, out, len, err);
    close(fd);
    return rs;
}

/* ------------------------------------------------------------------ */
/* Untrusted text on a terminal                                         */
/* ------------------------------------------------------------------ */

/* Length of the well-formed UTF-8 sequence at s that is not a C1 control
 * (U+0080..U+009F), or 0. */
static size_t utf8_ok(const unsigned char *s)
{
    size_t n;
    unsigned cp;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        n = 2;
        cp = s[0] & 0x1fu;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        n = 3;
        cp = s[0] & 0x0fu;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        n = 4;
        cp = s[0] & 0x07u;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3fu);
    }
    if (cp < 0xa0 || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0; /* C1 controls, overlong forms, surrogates, beyond Unicode */
    return n;
}

const char *tp_io_safe_text(const char *s, char *buf, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    if (n == 0)
        return "";
    for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
        size_t u = *p >= 0x80 ? utf8_ok(p) : 0;
        if (*p >= 0x20 && *p < 0x7f) {
            if (o + 1 >= n)
                break;
            buf[o++] = (char)*p++;
        } else if (u > 0) {
            if (o + u >= n)
                break;
            memcpy(buf + o, p, u);
            o += u;
            p += u;
        } else {
            if (o + 4 >= n)
                break;
            buf[o++] = '\\';
            buf[o++] = 'x';
            buf[o++] = hex[*p >> 4];
            buf[o++] = hex[*p & 15];
            p++;
        }
    }
    buf[o] = '\0';
    return buf;
}

char *tp_io_safe_dup(const char *s, char *small, size_t small_n)
{
    size_t need = TP_IO_SAFE_BYTES(strlen(s));
    char *buf = need <= small_n ? small : malloc(need);
    if (buf)
        tp_io_safe_text(s, buf, need <= small_n ? small_n : need);
    return buf;
}

void tp_io_put_safe(FILE *f, const char *s)
{
    char buf[256];
    size_t len = strlen(s);
    /* in pieces short enough that each escapes within buf (4 bytes a byte) */
    for (size_t i = 0; i < len;) {
        size_t take = len - i < 60 ? len - i : 60;
        while (take < len - i && take > 0 && ((unsigned char)s[i + take] & 0xc0) == 0x80)
            take--; /* do not split a UTF-8 sequence */
        if (take == 0)
            take = 1;
        char piece[64];
        memcpy(piece, s + i, take);
        piece[take] = '\0';
        fputs(tp_io_safe_text(piece, buf, sizeof buf), f);
        i += take;
    }
}
